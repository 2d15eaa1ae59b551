//! How the window's web view renders, where the platform leaves a choice.
//!
//! On Linux, WebKitGTK composites the page with OpenGL. Without a GPU (no DRM render node:
//! virtual machines, remote desktops, Xvfb) that GL is a software rasteriser, and compositing
//! in software cost more than it saves: measured at 5,000 domains under Xvfb, the composited
//! window needed 240–365 ms per frame while scrolling and 337–356 MiB of memory, against
//! 16–18 ms (p50) and 234–246 MiB with compositing off (`BENCHMARKS.md`, the app). So without
//! a render node the window asks WebKit for no hardware acceleration; with one, WebKit's
//! default stays. `DOMAIN_DESK_COMPOSITING=on` or `off` overrides the choice (a GPU the
//! process cannot see, say, or to measure both ways), and WebKit's own
//! `WEBKIT_DISABLE_COMPOSITING_MODE` keeps working as WebKit documents it.

/// What the user asked for in `DOMAIN_DESK_COMPOSITING`, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compositing {
    On,
    Off,
}

/// Reads the override: `on`/`off` (any case); anything else is ignored with a warning.
pub fn compositing_override(value: Option<&str>) -> Option<Compositing> {
    match value
        .map(|value| value.trim().to_ascii_lowercase())
        .as_deref()
    {
        None | Some("") => None,
        Some("on" | "1" | "true") => Some(Compositing::On),
        Some("off" | "0" | "false") => Some(Compositing::Off),
        Some(other) => {
            tracing::warn!(
                value = other,
                "DOMAIN_DESK_COMPOSITING is neither on nor off; ignored"
            );
            None
        }
    }
}

/// Whether the window composites: as overridden, else only where a GPU render node exists.
pub fn wants_compositing(overridden: Option<Compositing>, has_render_node: bool) -> bool {
    match overridden {
        Some(Compositing::On) => true,
        Some(Compositing::Off) => false,
        None => has_render_node,
    }
}

/// True when the machine has a DRM render node (`/dev/dri/renderD*`): a GPU that WebKit's
/// GL can use.
pub fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .filter_map(|entry| entry.ok())
            .any(|entry| entry.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Applies the choice to `window`'s web view (Linux; elsewhere the platform's web view
/// decides).
pub fn configure<R: tauri::Runtime>(window: &tauri::WebviewWindow<R>) {
    #[cfg(target_os = "linux")]
    {
        let overridden =
            compositing_override(std::env::var("DOMAIN_DESK_COMPOSITING").ok().as_deref());
        let render_node = has_render_node();
        if wants_compositing(overridden, render_node) {
            tracing::info!(render_node, "web view composites with WebKit's default");
            return;
        }
        tracing::info!(render_node, ?overridden, "web view compositing off");
        let result = window.with_webview(|webview| {
            use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
            if let Some(settings) = webview.inner().settings() {
                settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            }
        });
        if let Err(error) = result {
            tracing::warn!(%error, "could not configure the web view");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = window;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_override_wins_and_otherwise_a_render_node_decides() {
        assert_eq!(compositing_override(None), None);
        assert_eq!(compositing_override(Some(" OFF ")), Some(Compositing::Off));
        assert_eq!(compositing_override(Some("on")), Some(Compositing::On));
        assert_eq!(compositing_override(Some("sometimes")), None);
        assert!(wants_compositing(None, true));
        assert!(!wants_compositing(None, false));
        assert!(wants_compositing(Some(Compositing::On), false));
        assert!(!wants_compositing(Some(Compositing::Off), true));
    }
}

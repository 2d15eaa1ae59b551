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
//!
//! With compositing off, the window's own process draws the page's pixels with cairo and
//! never with GL, yet GTK and WebKit still load Mesa there at start: GTK to probe GLX visuals,
//! WebKit to open an EGL display it only uses for GPU buffers. Mesa's software driver brings
//! LLVM with it, about 30 MB of the process's memory. So in that case the window's process
//! keeps GL out ([`prepare_process`]): GTK is told not to use GL (`GDK_GL=disable`, unless the
//! user set it) and libEGL reads an empty vendor list once, before WebKit asks, which it then
//! keeps for the process's life. The variable that empties it is removed at once, so the web
//! process WebKit starts later (which needs EGL to run at all) loads Mesa as before.

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

/// Set by [`prepare_process`] when it kept GL out, for the log once there is one: whether
/// libEGL's vendor list was read empty.
#[cfg(target_os = "linux")]
static EGL_VENDORS_EMPTIED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Keeps Mesa out of the window's process when the window will not composite (see the module
/// notes); does nothing where it will, or off Linux.
///
/// # Safety
/// It sets and removes environment variables: call it before any thread starts.
#[allow(unsafe_code)]
pub unsafe fn prepare_process() {
    #[cfg(target_os = "linux")]
    {
        let overridden =
            compositing_override(std::env::var("DOMAIN_DESK_COMPOSITING").ok().as_deref());
        if wants_compositing(overridden, has_render_node()) {
            return;
        }
        if std::env::var_os("GDK_GL").is_none() {
            // SAFETY: the caller promises no other thread runs.
            unsafe { std::env::set_var("GDK_GL", "disable") };
        }
        // SAFETY: as above.
        let emptied = unsafe { read_no_egl_vendors() };
        let _ = EGL_VENDORS_EMPTIED.set(emptied);
    }
}

/// Makes libglvnd's libEGL read its vendor list now, from a list naming no vendor, and puts
/// the environment back: libEGL reads that list once per process, so WebKit's EGL display in
/// this process then fails (it carries on without one) while child processes find Mesa as
/// usual. False, and nothing changed, where the user names EGL vendors themselves or libEGL
/// is not glvnd's.
///
/// # Safety
/// It sets and removes an environment variable: call it before any thread starts.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
unsafe fn read_no_egl_vendors() -> bool {
    const VENDORS: &str = "__EGL_VENDOR_LIBRARY_FILENAMES";
    const EGL_EXTENSIONS: i32 = 0x3055;
    if std::env::var_os(VENDORS).is_some() {
        return false;
    }
    // SAFETY: the caller promises no other thread runs.
    unsafe { std::env::set_var(VENDORS, "/dev/null") };
    // SAFETY: libEGL's initialisers only set up its own state; the handle is never closed, so
    // the function pointer stays valid, and eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS) is
    // the documented query for client extensions, returning a static string or null.
    let read = unsafe {
        let library = libc::dlopen(c"libEGL.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL);
        let query = if library.is_null() {
            std::ptr::null_mut()
        } else {
            libc::dlsym(library, c"eglQueryString".as_ptr())
        };
        if query.is_null() {
            false
        } else {
            let query: unsafe extern "C" fn(*mut libc::c_void, i32) -> *const libc::c_char =
                std::mem::transmute(query);
            // glvnd knows no vendor to list extensions of: only its own client extensions,
            // none of a vendor's (Mesa's list names `EGL_MESA_platform_surfaceless`).
            let extensions = query(std::ptr::null_mut(), EGL_EXTENSIONS);
            extensions.is_null()
                || !std::ffi::CStr::from_ptr(extensions)
                    .to_string_lossy()
                    .contains("EGL_MESA_")
        }
    };
    // SAFETY: as above.
    unsafe { std::env::remove_var(VENDORS) };
    read
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
        tracing::info!(
            render_node,
            ?overridden,
            egl_vendors_emptied = ?EGL_VENDORS_EMPTIED.get(),
            "web view compositing off"
        );
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

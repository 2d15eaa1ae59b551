//! How the window's web view renders, where the platform leaves a choice.
//!
//! On Linux, WebKitGTK composites the page with OpenGL. Without a GPU (no DRM render node:
//! virtual machines, remote desktops, Xvfb) that GL is a software rasteriser, and compositing
//! in software cost more than it saves: measured at 5,000 domains under Xvfb, the composited
//! window needed 240–365 ms per frame while scrolling and 337–356 MiB of memory, against
//! 16–18 ms (p50) and 234–246 MiB with compositing off (`docs/benchmarks-history.md`). So
//! without a render node the window asks WebKit for no hardware acceleration; with one,
//! WebKit's default stays. `DOMAIN_DESK_COMPOSITING=on` or `off` overrides the choice (a GPU
//! the process cannot see, say, or to measure both ways), and WebKit's own
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
//!
//! Whether or not it composites, the window turns off the WebKit features in [`FEATURES_OFF`],
//! each for a reason measured here (see its notes).

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

/// WebKit features the window turns off, by WebKit's identifier (`webkit_feature_get_identifier`).
///
/// - `OpportunisticSweepingAndGarbageCollection`: WebKit sweeps JavaScriptCore's heap, and
///   collects it, in the time a frame leaves over. With 5,000 domains open the app's memory
///   after the scrolling and typing rounds read 288–311 MB with it on and 272–290 MB with it
///   off (eight launches each, taking turns), the web process's share 10–20 MB smaller. The
///   price is in scrolling's longest frames, 1–2 ms longer without it (a p99 of 18 ms or
///   more in six launches of eight, against three of eight); typing moves within one
///   launch's spread (`docs/benchmarks-history.md`, seventeenth reading). Measured without a
///   GPU, where the window does not composite.
pub const FEATURES_OFF: &[&str] = &["OpportunisticSweepingAndGarbageCollection"];

/// Applies the choice to `window`'s web view, and turns off [`FEATURES_OFF`] (Linux; elsewhere
/// the platform's web view decides).
pub fn configure<R: tauri::Runtime>(window: &tauri::WebviewWindow<R>) {
    #[cfg(target_os = "linux")]
    {
        let overridden =
            compositing_override(std::env::var("DOMAIN_DESK_COMPOSITING").ok().as_deref());
        let render_node = has_render_node();
        let composites = wants_compositing(overridden, render_node);
        if composites {
            tracing::info!(render_node, "web view composites with WebKit's default");
        } else {
            tracing::info!(
                render_node,
                ?overridden,
                egl_vendors_emptied = ?EGL_VENDORS_EMPTIED.get(),
                "web view compositing off"
            );
        }
        let result = window.with_webview(move |webview| {
            use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
            let Some(settings) = webview.inner().settings() else {
                tracing::warn!("the web view has no settings; WebKit's defaults stay");
                return;
            };
            if !composites {
                settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            }
            match features::turn_off(&settings, FEATURES_OFF) {
                Ok(unknown) if unknown.is_empty() => {
                    tracing::info!(features = ?FEATURES_OFF, "WebKit features off");
                }
                Ok(unknown) => {
                    tracing::warn!(?unknown, "WebKit knows no such features; left as they are")
                }
                Err(error) => tracing::warn!(%error, "WebKit features left as they are"),
            }
        });
        if let Err(error) = result {
            tracing::warn!(%error, "could not configure the web view");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = window;
}

/// WebKitGTK's feature switches (`webkit_settings_set_feature_enabled`, WebKitGTK 2.42), which
/// the `webkit2gtk` crate does not bind. Its functions are looked up when needed, not linked,
/// so the app still starts on an older WebKitGTK, leaving the features as they are.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub mod features {
    use std::ffi::{CStr, c_char, c_void};

    type Ptr = *mut c_void;

    /// The functions, looked up in WebKitGTK's library.
    struct Api {
        all_features: unsafe extern "C" fn() -> Ptr,
        list_length: unsafe extern "C" fn(Ptr) -> usize,
        list_get: unsafe extern "C" fn(Ptr, usize) -> Ptr,
        list_unref: unsafe extern "C" fn(Ptr),
        identifier: unsafe extern "C" fn(Ptr) -> *const c_char,
        set_enabled: unsafe extern "C" fn(Ptr, Ptr, i32),
    }

    fn api() -> Result<Api, String> {
        // SAFETY: the app has loaded this library already (the same handle comes back); loading
        // it anew (a test) runs only WebKit's own initialisers. The handle is never closed, so
        // the functions found stay valid.
        let library = unsafe {
            libc::dlopen(
                c"libwebkit2gtk-4.1.so.0".as_ptr(),
                libc::RTLD_NOW | libc::RTLD_GLOBAL,
            )
        };
        if library.is_null() {
            return Err("libwebkit2gtk-4.1.so.0 not loaded".into());
        }
        let find = |name: &CStr| -> Result<*mut c_void, String> {
            // SAFETY: dlsym only reads the library's symbol table.
            let found = unsafe { libc::dlsym(library, name.as_ptr()) };
            if found.is_null() {
                Err(format!(
                    "{} not found (WebKitGTK older than 2.42)",
                    name.to_string_lossy()
                ))
            } else {
                Ok(found)
            }
        };
        // SAFETY: each symbol is the WebKitGTK function of that name, whose C signature
        // (webkit/WebKitFeature.h, webkit/WebKitSettings.h) the type it is read as spells.
        unsafe {
            Ok(Api {
                all_features: cast(find(c"webkit_settings_get_all_features")?),
                list_length: cast(find(c"webkit_feature_list_get_length")?),
                list_get: cast(find(c"webkit_feature_list_get")?),
                list_unref: cast(find(c"webkit_feature_list_unref")?),
                identifier: cast(find(c"webkit_feature_get_identifier")?),
                set_enabled: cast(find(c"webkit_settings_set_feature_enabled")?),
            })
        }
    }

    /// A symbol as the function type `F` it is.
    ///
    /// # Safety
    /// `F` must be the symbol's function pointer type.
    unsafe fn cast<F: Copy>(symbol: Ptr) -> F {
        const { assert!(size_of::<F>() == size_of::<Ptr>()) };
        // SAFETY: same size (checked above); the caller vouches for the type.
        unsafe { std::mem::transmute_copy(&symbol) }
    }

    /// Calls `each` with every feature WebKit has and its identifier.
    fn for_each_feature(api: &Api, mut each: impl FnMut(Ptr, &str)) {
        // SAFETY: the list is WebKit's, returned with a reference we drop at the end; its
        // features and their identifiers live as long as it does.
        unsafe {
            let list = (api.all_features)();
            if list.is_null() {
                return;
            }
            for index in 0..(api.list_length)(list) {
                let feature = (api.list_get)(list, index);
                let identifier = (api.identifier)(feature);
                if !identifier.is_null() {
                    each(feature, &CStr::from_ptr(identifier).to_string_lossy());
                }
            }
            (api.list_unref)(list);
        }
    }

    /// The identifiers of every feature this WebKit has (for the test that the features
    /// turned off are ones it has).
    #[cfg(test)]
    pub fn identifiers() -> Result<Vec<String>, String> {
        let api = api()?;
        let mut all = Vec::new();
        for_each_feature(&api, |_, identifier| all.push(identifier.to_owned()));
        Ok(all)
    }

    /// Turns off the features named in `identifiers` for `settings`; answers those this
    /// WebKit does not have.
    pub fn turn_off<'a>(
        settings: &webkit2gtk::Settings,
        identifiers: &[&'a str],
    ) -> Result<Vec<&'a str>, String> {
        use webkit2gtk::glib::translate::ToGlibPtr;
        let api = api()?;
        let raw: *mut webkit2gtk::ffi::WebKitSettings = settings.to_glib_none().0;
        let mut unknown = identifiers.to_vec();
        for_each_feature(&api, |feature, identifier| {
            if let Some(at) = unknown.iter().position(|&wanted| wanted == identifier) {
                // SAFETY: `raw` is a live WebKitSettings (borrowed from `settings`) and
                // `feature` one of WebKit's own, alive while its list is.
                unsafe { (api.set_enabled)(raw.cast(), feature, 0) };
                unknown.remove(at);
            }
        });
        Ok(unknown)
    }
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

    /// Every feature the window turns off is one this WebKit has: a feature renamed or dropped
    /// in a WebKit update would otherwise stay on without a word but the log's.
    #[cfg(target_os = "linux")]
    #[test]
    fn every_feature_turned_off_is_one_webkit_has() {
        let known = features::identifiers().expect("WebKitGTK 2.42 or later");
        assert!(known.len() > 100, "{} features", known.len());
        for feature in FEATURES_OFF {
            assert!(
                known.iter().any(|k| k == feature),
                "WebKit has no feature {feature}"
            );
        }
        assert!(!known.iter().any(|k| k == "NoSuchFeature"));
    }
}

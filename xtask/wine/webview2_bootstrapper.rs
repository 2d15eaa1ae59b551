//! A stand-in for Microsoft's WebView2 evergreen bootstrapper, used only by
//! `cargo xtask windows` to see under Wine that the installer runs the bootstrapper it carries
//! when the runtime is missing, with the switches Microsoft documents, and leaves it alone when
//! the runtime is there. The real bootstrapper cannot be fetched on a machine limited to the
//! package registries. It appends its command line to
//! `%LOCALAPPDATA%\webview2-bootstrapper-ran.txt`. It is not part of the workspace and never ships.

use std::io::Write;

fn main() {
    let Some(dir) = std::env::var_os("LOCALAPPDATA") else {
        std::process::exit(2);
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = std::path::Path::new(&dir).join("webview2-bootstrapper-ran.txt");
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| writeln!(file, "{}", args.join(" ")));
    std::process::exit(if written.is_ok() { 0 } else { 3 });
}

//! The service as `domain-desk serve --memory` starts it (same runtime, same allocator), for
//! quick profiling loops on the service crate alone: the app's release build takes far longer.
//! The service's benchmark figures come from the real `domain-desk serve`, not from this. The
//! app's benchmark runs the platform's stand-in from this: it links no GTK or WebKit, so it
//! shares no pages with the window's processes, whose memory that benchmark reads.
//!
//! ```text
//! serve_memory ADDR [--no-read-cache] [--clock-speed F]
//! ```
//! Prints the API's address and the enterprise demo key as `domain-desk serve`'s banner does
//! (`api …`, `demo API keys:`, `enterprise …`, `Ctrl-C stops.`), then serves until killed.
//! The virtual clock runs 60 times fast unless `--clock-speed` says otherwise.

use domain_desk_service::{Service, ServiceSettings, Storage};

/// The allocator of the `domain-desk` binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// Its output is what it is for: the address and key a profiling script reads.
#[allow(clippy::print_stdout)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(addr) = args.first() else {
        return Err("usage: serve_memory ADDR [--no-read-cache] [--clock-speed F]".into());
    };
    let clock_speed = match args.iter().position(|arg| arg == "--clock-speed") {
        Some(at) => args
            .get(at + 1)
            .ok_or("--clock-speed needs a number")?
            .parse::<f64>()?,
        None => 60.0,
    };
    let loopback = |port: u16| std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let settings = ServiceSettings {
        storage: Storage::Memory,
        api_addr: addr.parse()?,
        dns_addr: loopback(0),
        edge_https_addr: loopback(0),
        edge_http_addr: loopback(0),
        clock_speed,
        read_cache: !args.iter().any(|arg| arg == "--no-read-cache"),
        ..ServiceSettings::default()
    };
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async move {
        let running = Service::spawn(settings).await?;
        println!("api {}", running.base_url());
        println!("demo API keys:");
        println!(
            "  enterprise {}",
            running.demo_key(domain_desk_api::Plan::Enterprise)
        );
        println!("Ctrl-C stops.");
        running.run_until(std::future::pending()).await
    })?;
    Ok(())
}

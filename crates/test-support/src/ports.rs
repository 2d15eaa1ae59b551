//! Loopback ports for a program that binds them itself, later: WebKitWebDriver behind
//! tauri-driver, `serve.exe` under Wine, a peer started for a benchmark.
//!
//! A port found free by binding port 0 is one of the kernel's ephemeral ports, and until the
//! program binds it every outgoing connection on the machine may be given it: a cold CI run
//! lost an end-to-end session to "Unable to listen for HTTP server at host 127.0.0.1" so.
//! Ports below the ephemeral range are only ever taken by an explicit bind.

use std::net::TcpListener;
use std::sync::atomic::{AtomicU16, Ordering};

/// The first port handed out; below it are the ports of well-known services.
const LOWEST: u16 = 1024;

/// A loopback port that is free now and below the kernel's ephemeral range. Each call in a
/// process moves on from the last port given; processes start at different places.
pub fn free_loopback_port() -> std::io::Result<u16> {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let (ephemeral_low, _) = ephemeral_port_range();
    let span = ephemeral_low.clamp(LOWEST + 1024, 32768) - LOWEST;
    let start = u16::try_from(std::process::id() % u32::from(span)).unwrap_or(0);
    for _ in 0..span {
        let offset = NEXT.fetch_add(1, Ordering::Relaxed);
        let port = LOWEST + start.wrapping_add(offset) % span;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AddrInUse,
        format!("no free loopback port below the ephemeral range (from {ephemeral_low})"),
    ))
}

/// The kernel's range for the ports it assigns itself (Linux's default where it cannot be
/// read, as on other systems).
pub fn ephemeral_port_range() -> (u16, u16) {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|text| {
            let mut ports = text.split_whitespace().map(str::parse::<u16>);
            Some((ports.next()?.ok()?, ports.next()?.ok()?))
        })
        .unwrap_or((32768, 60999))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_free_distinct_and_below_the_ephemeral_range() {
        let (low, high) = ephemeral_port_range();
        assert!(low <= high, "{low}..{high}");
        let ports: Vec<u16> = (0..50).map(|_| free_loopback_port().unwrap()).collect();
        for &port in &ports {
            assert!((LOWEST..low).contains(&port), "{port} not below {low}");
            TcpListener::bind(("127.0.0.1", port)).expect("the port is free");
        }
        let mut distinct = ports.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), ports.len(), "{ports:?}");
    }
}

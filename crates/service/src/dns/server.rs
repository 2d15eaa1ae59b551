//! The authoritative DNS server on its sockets: one address for UDP and TCP ([`bind_dns`]),
//! TCP through hickory-server's plumbing, UDP through our own loops ([`super::fast`]), both
//! answering with the [`ZoneHandler`].

use std::future::Future;
use std::time::Duration;

use hickory_server::Server;
use tokio::net::{TcpListener, UdpSocket};

use super::fast::UdpLoops;
use super::handler::ZoneHandler;
use crate::{Error, Result};

/// How long an idle TCP connection stays open.
const TCP_IDLE_TIMEOUT: Duration = Duration::from_secs(10);

/// Answers queued for sending on one TCP connection: 32, the size hickory-server 0.25 gave
/// every connection (0.26 asks for it; 32 is also hickory-net's default).
const TCP_RESPONSE_BUFFER: usize = 32;

/// Bytes the kernel may queue for the UDP socket. A burst of questions (a resolver or a batch
/// tool with thousands in flight) arrives faster than any server answers; with the default
/// buffer (about 200 kB, some 800 questions) the rest are dropped and the client waits
/// seconds to retransmit. A queued question costs the kernel about a kilobyte whatever its
/// size, so 32 MB holds some 30,000.
const UDP_BUFFER_BYTES: usize = 32 * 1024 * 1024;

async fn bind_udp(address: std::net::SocketAddr) -> Result<UdpSocket> {
    let udp = UdpSocket::bind(address).await?;
    let socket = socket2::SockRef::from(&udp);
    if !force_receive_buffer(&udp, UDP_BUFFER_BYTES) {
        // Without the privilege, the kernel caps the size at `net.core.rmem_max`.
        if let Err(error) = socket.set_recv_buffer_size(UDP_BUFFER_BYTES) {
            tracing::debug!(%error, "could not enlarge the DNS socket's receive buffer");
        }
    }
    if let Err(error) = socket.set_send_buffer_size(UDP_BUFFER_BYTES) {
        tracing::debug!(%error, "could not enlarge the DNS socket's send buffer");
    }
    Ok(udp)
}

/// `SO_RCVBUFFORCE`: the size asked for even past `net.core.rmem_max`, for a process with
/// `CAP_NET_ADMIN` (as Unbound's `so-rcvbuf` does). False when refused.
#[cfg(target_os = "linux")]
fn force_receive_buffer(udp: &UdpSocket, bytes: usize) -> bool {
    nix::sys::socket::setsockopt(udp, nix::sys::socket::sockopt::RcvBufForce, &bytes).is_ok()
}

#[cfg(not(target_os = "linux"))]
fn force_receive_buffer(_udp: &UdpSocket, _bytes: usize) -> bool {
    false
}

/// Binds a UDP socket and a TCP listener on the same address. With port 0 it picks a port
/// that is free for both, so `dig` and `dig +tcp` reach the server at one `host:port`.
pub async fn bind_dns(address: std::net::SocketAddr) -> Result<(UdpSocket, TcpListener)> {
    if address.port() != 0 {
        let udp = bind_udp(address).await?;
        let tcp = TcpListener::bind(address).await?;
        return Ok((udp, tcp));
    }
    let mut last_error = None;
    for _ in 0..20 {
        let udp = bind_udp(address).await?;
        let chosen = udp.local_addr()?;
        match TcpListener::bind(chosen).await {
            Ok(tcp) => return Ok((udp, tcp)),
            Err(error) => last_error = Some(error),
        }
    }
    Err(last_error
        .map(Error::Io)
        .unwrap_or_else(|| Error::Dns("no port free for both UDP and TCP".to_owned())))
}

/// Serves DNS on an already bound UDP socket and TCP listener until `shutdown` completes.
pub async fn serve_dns(
    handler: ZoneHandler,
    udp: UdpSocket,
    tcp: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    // Stopped when this function returns or its future is dropped.
    let _udp_loops = UdpLoops::start(&handler, udp.into_std()?)?;
    let mut server = Server::new(handler);
    server.register_listener(tcp, TCP_IDLE_TIMEOUT, TCP_RESPONSE_BUFFER);
    let token = server.shutdown_token().clone();
    tokio::spawn(async move {
        shutdown.await;
        token.cancel();
    });
    server
        .block_until_done()
        .await
        .map_err(|error| Error::Dns(error.to_string()))
}

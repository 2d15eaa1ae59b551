//! The UDP loops: one thread per core on the DNS socket, each receiving questions in batches
//! and answering them inline through its [`AnswerCache`].

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::answer_cache::AnswerCache;
use super::one_question::UDP_RECEIVE_BYTES;
use crate::Result;
use crate::dns::handler::ZoneHandler;

/// How many UDP loops share the socket: one per core, so a burst is answered on all of them.
fn udp_loop_count() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// How often a UDP loop waiting for a question looks whether it should stop (it is woken at
/// once on a stop; this is the fallback when the wake-up datagram is lost).
const UDP_STOP_CHECK: Duration = Duration::from_millis(500);

/// Questions received (and answers sent) in one system call (`recvmmsg`/`sendmmsg`).
#[cfg(target_os = "linux")]
const UDP_BATCH: usize = 32;

/// The UDP loops: one thread per core, each with a blocking handle on the same socket,
/// receiving and answering questions in batches. Dropping this stops them.
pub(crate) struct UdpLoops {
    stop: Arc<AtomicBool>,
    /// Where a datagram wakes a loop waiting for a question.
    wake: SocketAddr,
    count: usize,
}

impl UdpLoops {
    pub(crate) fn start(handler: &ZoneHandler, udp: std::net::UdpSocket) -> Result<Self> {
        udp.set_nonblocking(false)?;
        udp.set_read_timeout(Some(UDP_STOP_CHECK))?;
        let local = udp.local_addr()?;
        let wake = match local.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv4Addr::LOCALHOST.into(), local.port())
            }
            IpAddr::V6(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv6Addr::LOCALHOST.into(), local.port())
            }
            _ => local,
        };
        let mut loops = Self {
            stop: Arc::new(AtomicBool::new(false)),
            wake,
            count: 0,
        };
        let handler = Arc::new(handler.clone());
        for index in 0..udp_loop_count() {
            let socket = udp.try_clone()?;
            let (handler, stop) = (Arc::clone(&handler), Arc::clone(&loops.stop));
            std::thread::Builder::new()
                .name(format!("dns-udp-{index}"))
                .spawn(move || serve_udp(&handler, &socket, &stop))?;
            loops.count += 1;
        }
        Ok(loops)
    }
}

impl Drop for UdpLoops {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // A datagram of no bytes wakes a waiting loop, which then sees the stop (a loop may
        // take two in one batch, hence twice as many).
        let any: SocketAddr = if self.wake.is_ipv4() {
            (Ipv4Addr::LOCALHOST, 0).into()
        } else {
            (Ipv6Addr::LOCALHOST, 0).into()
        };
        if let Ok(socket) = std::net::UdpSocket::bind(any) {
            for _ in 0..self.count * 2 {
                let _ = socket.send_to(&[], self.wake);
            }
        }
    }
}

/// Receives questions on `udp` in batches (`recvmmsg`, taking whatever has arrived, at least
/// one) and sends their answers in one call (`sendmmsg`), until `stop`. A receive error (e.g.
/// an ICMP port unreachable reported for an earlier answer) is skipped, not fatal.
#[cfg(target_os = "linux")]
fn serve_udp(handler: &ZoneHandler, udp: &std::net::UdpSocket, stop: &AtomicBool) {
    use std::io::{IoSlice, IoSliceMut};
    use std::os::fd::AsRawFd;

    use nix::errno::Errno;
    use nix::sys::socket::{
        ControlMessage, MsgFlags, MultiHeaders, SockaddrStorage, recvmmsg, sendmmsg,
    };

    let fd = udp.as_raw_fd();
    let mut questions = vec![vec![0_u8; UDP_RECEIVE_BYTES]; UDP_BATCH];
    let mut received = MultiHeaders::<SockaddrStorage>::preallocate(UDP_BATCH, None);
    let mut sent = MultiHeaders::<SockaddrStorage>::preallocate(UDP_BATCH, None);
    let mut arrived: Vec<(usize, Option<SockaddrStorage>)> = Vec::with_capacity(UDP_BATCH);
    let mut answers: Vec<Vec<u8>> = (0..UDP_BATCH).map(|_| Vec::with_capacity(512)).collect();
    let mut to: Vec<Option<SockaddrStorage>> = Vec::with_capacity(UDP_BATCH);
    let mut cache = AnswerCache::default();
    while !stop.load(Ordering::Relaxed) {
        arrived.clear();
        {
            let mut slices: Vec<[IoSliceMut<'_>; 1]> = questions
                .iter_mut()
                .map(|question| [IoSliceMut::new(question)])
                .collect();
            match recvmmsg(
                fd,
                &mut received,
                slices.iter_mut(),
                MsgFlags::MSG_WAITFORONE,
                None,
            ) {
                Ok(messages) => arrived.extend(messages.map(|m| (m.bytes, m.address))),
                // The read timeout: time to look at `stop`.
                Err(Errno::EAGAIN | Errno::EINTR) => continue,
                Err(error) => {
                    tracing::debug!(%error, "DNS UDP receive failed");
                    continue;
                }
            }
        }
        to.clear();
        for (&(length, from), question) in arrived.iter().zip(&questions) {
            let (Some(from), Some(question)) = (from, question.get(..length)) else {
                continue;
            };
            let peer = match (from.as_sockaddr_in(), from.as_sockaddr_in6()) {
                (Some(v4), _) => SocketAddr::V4((*v4).into()),
                (_, Some(v6)) => SocketAddr::V6((*v6).into()),
                _ => continue,
            };
            let Some(answer) = answers.get_mut(to.len()) else {
                break;
            };
            if cache.answer(handler, question, peer, answer) {
                to.push(Some(from));
            }
        }
        let outgoing: Vec<[IoSlice<'_>; 1]> = answers
            .iter()
            .take(to.len())
            .map(|answer| [IoSlice::new(answer)])
            .collect();
        let mut done = 0;
        while let (Some(rest), Some(addresses)) = (outgoing.get(done..), to.get(done..)) {
            if rest.is_empty() {
                break;
            }
            let no_control: [ControlMessage<'_>; 0] = [];
            match sendmmsg(
                fd,
                &mut sent,
                rest,
                addresses,
                no_control,
                MsgFlags::empty(),
            ) {
                Ok(results) => done += results.count().max(1),
                Err(Errno::EINTR) => {}
                Err(error) => {
                    tracing::debug!(%error, "could not send a DNS answer");
                    // The first answer failed: drop it and send the rest.
                    done += 1;
                }
            }
        }
    }
}

/// Receives a question on `udp` and answers it before receiving the next, until `stop`.
#[cfg(not(target_os = "linux"))]
fn serve_udp(handler: &ZoneHandler, udp: &std::net::UdpSocket, stop: &AtomicBool) {
    use std::io::ErrorKind;

    let mut question = vec![0_u8; UDP_RECEIVE_BYTES];
    let mut answer = Vec::with_capacity(512);
    let mut cache = AnswerCache::default();
    while !stop.load(Ordering::Relaxed) {
        match udp.recv_from(&mut question) {
            Ok((length, from)) => {
                let Some(question) = question.get(..length) else {
                    continue;
                };
                if cache.answer(handler, question, from, &mut answer) {
                    if let Err(error) = udp.send_to(&answer, from) {
                        tracing::debug!(%error, to = %from, "could not send a DNS answer");
                    }
                }
            }
            Err(error)
                if matches!(
                    error.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(error) => tracing::debug!(%error, "DNS UDP receive failed"),
        }
    }
}

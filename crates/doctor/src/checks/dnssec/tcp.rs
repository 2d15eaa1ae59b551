//! The TCP exchange the DNSSEC check and its trust anchors ask over (signed answers are
//! large), with checking disabled so that a validating resolver hands over what it judges
//! bogus.

use std::net::SocketAddr;
use std::time::Duration;

use hickory_net::runtime::TokioRuntimeProvider;
use hickory_net::tcp::TcpClientStream;
use hickory_net::xfer::{DnsExchange, DnsHandle, DnsMultiplexer};
use hickory_proto::op::DnsRequest;

/// The exchange over tokio's sockets that the walk, the anchors and hickory's handle share.
pub(super) type TcpExchange = DnsExchange<TokioRuntimeProvider>;

/// A TCP exchange with `server` and its background task (which the caller aborts).
pub(super) async fn connect(
    server: SocketAddr,
    timeout: Duration,
) -> Result<(TcpExchange, tokio::task::JoinHandle<()>), String> {
    let (stream, handle) =
        TcpClientStream::new(server, None, Some(timeout), TokioRuntimeProvider::default());
    let stream = stream
        .await
        .map_err(|error| format!("cannot reach {server} over TCP: {error}"))?;
    let multiplexer = DnsMultiplexer::new(stream, handle).with_timeout(timeout);
    let (exchange, background) = DnsExchange::from_stream(multiplexer);
    Ok((exchange, tokio::spawn(background)))
}

/// Sends every question with the CD flag, below hickory's validating handle (which clears
/// it): the resolver's own verdict must not hide the data the doctor judges.
#[derive(Clone)]
pub(super) struct CheckingDisabled<H>(pub(super) H);

impl<H: DnsHandle> DnsHandle for CheckingDisabled<H> {
    type Response = H::Response;
    type Runtime = H::Runtime;

    fn send(&self, mut request: DnsRequest) -> Self::Response {
        request.metadata.checking_disabled = true;
        self.0.send(request)
    }
}

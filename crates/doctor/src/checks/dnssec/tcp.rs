//! The TCP exchange the DNSSEC check and its trust anchors ask over (signed answers are
//! large), with checking disabled so that a validating resolver hands over what it judges
//! bogus.

use std::net::SocketAddr;
use std::time::Duration;

use hickory_proto::ProtoError;
use hickory_proto::runtime::{TokioRuntimeProvider, TokioTime};
use hickory_proto::tcp::TcpClientStream;
use hickory_proto::xfer::{DnsExchange, DnsHandle, DnsMultiplexer, DnsRequest};

/// A TCP exchange with `server` and its background task (which the caller aborts).
pub(super) async fn connect(
    server: SocketAddr,
    timeout: Duration,
) -> Result<(DnsExchange, tokio::task::JoinHandle<Result<(), ProtoError>>), String> {
    let (stream, handle) =
        TcpClientStream::new(server, None, Some(timeout), TokioRuntimeProvider::default());
    let multiplexer = DnsMultiplexer::with_timeout(stream, handle, timeout, None);
    let (exchange, background) = DnsExchange::connect::<_, _, TokioTime>(multiplexer)
        .await
        .map_err(|error| format!("cannot reach {server} over TCP: {error}"))?;
    Ok((exchange, tokio::spawn(background)))
}

/// Sends every question with the CD flag, below hickory's validating handle (which clears
/// it): the resolver's own verdict must not hide the data the doctor judges.
#[derive(Clone)]
pub(super) struct CheckingDisabled<H>(pub(super) H);

impl<H: DnsHandle> DnsHandle for CheckingDisabled<H> {
    type Response = H::Response;

    fn send<R: Into<DnsRequest> + Unpin + Send + 'static>(&self, request: R) -> Self::Response {
        let mut request: DnsRequest = request.into();
        request.set_checking_disabled(true);
        self.0.send(request)
    }
}

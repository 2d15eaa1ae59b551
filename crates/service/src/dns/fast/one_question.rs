//! One UDP question answered as hickory-server's `Server` would answer it, with the
//! [`ZoneHandler`], into bytes the loop sends (and may remember).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Waker};

use hickory_net::NetError;
use hickory_net::runtime::TokioTime;
use hickory_net::xfer::Protocol;
use hickory_proto::op::{
    Edns, Header, HeaderCounts, Message, MessageType, Metadata, OpCode, ResponseCode,
};
use hickory_proto::rr::Record;
use hickory_proto::serialize::binary::{BinDecodable, BinDecoder, BinEncoder};
use hickory_server::server::{Request, RequestHandler, ResponseHandler, ResponseInfo};
use hickory_server::zone_handler::MessageResponse;

use crate::dns::handler::ZoneHandler;

/// The largest UDP question we read (hickory's own receive size; EDNS questions are far
/// smaller).
pub(super) const UDP_RECEIVE_BYTES: usize = hickory_net::udp::MAX_RECEIVE_BUFFER_SIZE;

/// Answers one UDP question as hickory-server would, into `answer`: a readable query goes to
/// the handler, a message whose header is readable but whose rest is not gets FORMERR, a
/// response or anything shorter than a header gets nothing (false).
pub(super) fn answer_udp(
    handler: &ZoneHandler,
    question: &[u8],
    from: SocketAddr,
    answer: &mut Vec<u8>,
) -> bool {
    let header = match Header::read(&mut BinDecoder::new(question)) {
        Ok(header) => header,
        Err(error) => {
            tracing::debug!(%error, %from, "unreadable DNS question");
            return false;
        }
    };
    let request = match Request::from_bytes(question.to_vec(), from, Protocol::Udp) {
        Ok(request) => request,
        Err(_) => {
            let mut response = Message::new(header.id, MessageType::Response, header.op_code);
            response.metadata = Metadata::response_from_request(&header.metadata);
            response.metadata.response_code = ResponseCode::FormErr;
            return match response.to_vec() {
                Ok(bytes) => {
                    *answer = bytes;
                    true
                }
                Err(error) => {
                    tracing::warn!(%error, "could not encode a FORMERR");
                    false
                }
            };
        }
    };
    if request.metadata.message_type == MessageType::Response {
        return false;
    }
    let captured = Captured::default();
    let mut handling = handler.handle_request::<_, TokioTime>(&request, captured.clone());
    // The handler never waits (the zones are in memory and the answer is captured, not sent),
    // so one poll completes it.
    let mut context = Context::from_waker(Waker::noop());
    if handling.as_mut().poll(&mut context).is_pending() {
        tracing::error!("the DNS handler did not answer at once");
        return false;
    }
    match captured.take() {
        Some(bytes) => {
            *answer = bytes;
            true
        }
        None => false,
    }
}

/// The answer to one UDP question, encoded and kept for the loop to send (and remember).
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Option<Vec<u8>>>>);

impl Captured {
    fn take(&self) -> Option<Vec<u8>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

#[async_trait::async_trait]
impl ResponseHandler for Captured {
    async fn send_response<'a>(
        &mut self,
        response: MessageResponse<
            '_,
            'a,
            impl Iterator<Item = &'a Record> + Send + 'a,
            impl Iterator<Item = &'a Record> + Send + 'a,
            impl Iterator<Item = &'a Record> + Send + 'a,
            impl Iterator<Item = &'a Record> + Send + 'a,
        >,
    ) -> Result<ResponseInfo, NetError> {
        let id = response.metadata().id;
        // At most the EDNS payload, as hickory-server's UDP responses. Without EDNS, 4096 bytes
        // (hickory's receive size; hickory-server 0.26 itself stops at 512): the handler has
        // already emptied, with TC, an answer that may not fit 512 bytes.
        let limit = response
            .edns()
            .map_or(UDP_RECEIVE_BYTES as u16, Edns::max_payload);
        let mut buffer = Vec::with_capacity(512);
        let mut encoder = BinEncoder::new(&mut buffer);
        encoder.set_max_size(limit);
        let info = match response.destructive_emit(&mut encoder) {
            Ok(info) => info,
            Err(error) => {
                tracing::error!(%error, "could not encode a DNS answer");
                let message = Message::error_msg(id, OpCode::Query, ResponseCode::ServFail);
                buffer = message.to_vec()?;
                Header {
                    metadata: message.metadata,
                    counts: HeaderCounts::default(),
                }
                .into()
            }
        };
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(buffer);
        Ok(info)
    }
}

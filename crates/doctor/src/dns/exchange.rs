//! One DNS question and the answer it got, with the time it was asked: what a [`Recorder`]
//! keeps and a capture file stores.
//!
//! [`Recorder`]: super::Recorder

use std::net::SocketAddr;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use hickory_proto::rr::RecordType;
use serde::{Deserialize, Serialize};

use super::answer::Answer;
use super::wire_query::WireQuery;
use crate::{Error, Result};

/// One DNS question and the answer it got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    pub server: SocketAddr,
    pub name: String,
    #[serde(rename = "type")]
    pub record_type: String,
    pub recursion_desired: bool,
    pub checking_disabled: bool,
    pub asked_at: DateTime<Utc>,
    pub answer: Answer,
}

impl Exchange {
    pub(crate) fn new(question: &WireQuery, asked_at: DateTime<Utc>, answer: Answer) -> Self {
        Self {
            server: question.server,
            name: question.name.clone(),
            record_type: question.record_type.to_string(),
            recursion_desired: question.recursion_desired,
            checking_disabled: question.checking_disabled,
            asked_at,
            answer,
        }
    }

    pub(crate) fn question(&self) -> Result<WireQuery> {
        let record_type = RecordType::from_str(&self.record_type).map_err(|_| {
            Error::CaptureCorrupt(format!(
                "the exchange for {} has an unknown record type {:?}",
                self.name, self.record_type
            ))
        })?;
        Ok(WireQuery {
            server: self.server,
            name: self.name.clone(),
            record_type,
            recursion_desired: self.recursion_desired,
            checking_disabled: self.checking_disabled,
        })
    }
}

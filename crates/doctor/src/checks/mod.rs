//! The checks, one file each. Each turns answers already gathered into findings; the order
//! of questions and their parallelism live in `host.rs`.

pub mod acme_delegation;
pub mod apex_or_subdomain;
pub mod caa;
pub mod challenge_labels;
pub mod dangling;
pub mod dnssec;
pub mod doubled_zone;
pub mod health;
pub mod live_elsewhere;
pub mod nameservers;
pub mod propagation;
pub mod proxy;
pub mod records;
pub mod records_at_name;
pub mod renewal;
pub mod tls;
pub mod wildcard;
pub mod wildcard_probe;

use crate::dns::Answer;
use crate::report::Evidence;

/// What `answer` shows, attributed to the server `label`.
pub(crate) fn evidence(label: &str, answer: &Answer, note: Option<String>) -> Evidence {
    Evidence {
        server: label.to_owned(),
        question: format!("{} {}", answer.question, answer.question_type),
        status: answer.status,
        records: answer.answers.clone(),
        note: note.or_else(|| answer.error.clone()),
    }
}

/// Seconds as a person reads them: `45 s`, `12 min`, `3 h 20 min`.
pub(crate) fn human_duration(seconds: u32) -> String {
    match seconds {
        0..=119 => format!("{seconds} s"),
        120..=7199 => format!("{} min", seconds.div_ceil(60)),
        _ => format!("{} h {} min", seconds / 3600, (seconds % 3600) / 60),
    }
}

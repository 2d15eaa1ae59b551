//! How instants are written in the database: RFC 3339 UTC with microseconds and a `Z`, a fixed
//! width, so text order is time order and SQL can compare them.

use chrono::{DateTime, SecondsFormat, Utc};

use crate::{Error, Result};

pub fn to_sql(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

pub fn from_sql(text: &str) -> Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .map(|at| at.with_timezone(&Utc))
        .map_err(|_| Error::Corrupt(format!("timestamp {text:?}")))
}

pub fn opt_from_sql(text: Option<String>) -> Result<Option<DateTime<Utc>>> {
    text.as_deref().map(from_sql).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_sorts_as_text() {
        let early: DateTime<Utc> = "2026-01-01T00:00:00.5Z".parse().unwrap();
        let late: DateTime<Utc> = "2026-01-01T00:00:10Z".parse().unwrap();
        assert_eq!(from_sql(&to_sql(early)).unwrap(), early);
        assert!(to_sql(early) < to_sql(late));
        assert!(from_sql("yesterday").is_err());
    }
}

//! The local service's control plane (`/_local`): the demo DNS provider, the clock and reset.
//! Spoken over loopback HTTP, so the same code drives the service embedded in the window and
//! one started with `domain-desk serve`, for the window's Demo DNS panel and the command line.
//! It also answers the one question about the local service that needs its API: which
//! hostnames (and domains) its demo accounts have attached
//! ([`LocalControl::attached_hostnames`], asked through the API client's queues like every
//! other API call).
//!
//! It lives in the client crate, next to the API client it complements, so it knows nothing of
//! Tauri and is tested against the real service in-process (`tests/suite/local_control.rs`).
//! It is not the platform's API: no key, no queue, and its errors keep the control plane's
//! own codes ([`Error::Control`]), which the Demo DNS panel switches on.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain_desk_api::local::{
    ClockAdvance, ClockState, DEMO_ZONES, LocalInfo, NewZone, NewZoneRecord, ZoneDnssec,
    ZoneRecord, ZoneRecordList, ZoneSignatures,
};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;

use domain_desk_api::{Domain, ErrorBody, Plan};

use crate::config::ClientConfig;
use crate::error::{Error, Result};
use crate::pool::ClientPool;

/// A handle on one local service's control plane; cheap to clone (clones share the list of
/// zones added through it).
#[derive(Debug, Clone)]
pub struct LocalControl {
    http: reqwest::Client,
    /// `http://127.0.0.1:port`, without a trailing slash.
    base: String,
    /// Zones added through this control plane, for services that cannot list their zones.
    added_zones: Arc<Mutex<BTreeSet<String>>>,
}

impl LocalControl {
    /// The control plane of the service at `base_url` (`http://127.0.0.1:port`).
    pub fn new(base_url: &str) -> Result<Self> {
        let http = crate::http::client_builder()
            .timeout(Duration::from_secs(15))
            .no_proxy()
            .build()
            .map_err(|err| Error::Setup(err.without_url().to_string()))?;
        Ok(Self {
            http,
            base: base_url.trim_end_matches('/').to_owned(),
            added_zones: Arc::default(),
        })
    }

    pub fn base_url(&self) -> &str {
        &self.base
    }

    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&(impl Serialize + ?Sized)>,
    ) -> Result<Option<T>> {
        let sends_body = matches!(method, Method::POST | Method::PUT);
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        match body {
            Some(body) => request = request.json(body),
            // The control plane takes a POST or PUT only as JSON (a web page cannot send that
            // without a preflight), so one without a body still says so.
            None if sends_body => {
                request = request
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body("{}");
            }
            None => {}
        }
        let response = request.send().await.map_err(|err| Error::Control {
            code: "network".into(),
            message: format!(
                "The offline demo's service did not answer: {}",
                err.without_url()
            ),
        })?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|err| Error::Control {
            code: "network".into(),
            message: err.without_url().to_string(),
        })?;
        if !status.is_success() {
            return Err(match serde_json::from_slice::<ErrorBody>(&bytes) {
                Ok(body) => Error::Control {
                    code: serde_json::to_value(body.error.code)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .filter(|c| c != "unknown")
                        .unwrap_or_else(|| format!("http_{}", status.as_u16())),
                    message: body.error.message,
                },
                Err(_) => Error::Control {
                    code: format!("http_{}", status.as_u16()),
                    message: format!("The offline demo's service answered {status}."),
                },
            });
        }
        if status == StatusCode::NO_CONTENT || bytes.is_empty() {
            return Ok(None);
        }
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|err| Error::Control {
                code: "decode".into(),
                message: format!("The offline demo's answer could not be read: {err}"),
            })
    }

    async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T> {
        self.call(Method::GET, path, None::<&()>)
            .await?
            .ok_or_else(empty_answer)
    }

    pub async fn info(&self) -> Result<LocalInfo> {
        self.get("/_local/info").await
    }

    /// The demo zones: `GET /_local/dns` where the service lists them, otherwise the zones
    /// every local service is seeded with and those added through this control plane.
    pub async fn zones(&self) -> Result<Vec<String>> {
        match self.listed_zones().await {
            Err(Error::Control { code, .. })
                if matches!(
                    code.as_str(),
                    "not_found" | "method_not_allowed" | "http_404" | "http_405"
                ) =>
            {
                let mut zones: BTreeSet<String> =
                    DEMO_ZONES.iter().map(|z| (*z).to_owned()).collect();
                zones.extend(self.added().iter().cloned());
                Ok(zones.into_iter().collect())
            }
            other => other,
        }
    }

    fn added(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        // A poisoned lock only means another thread panicked mid-insert; the set is still
        // a valid set of names.
        self.added_zones
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    async fn listed_zones(&self) -> Result<Vec<String>> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Zones {
            Names(Vec<String>),
            Wrapped { zones: Vec<ZoneName> },
        }
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum ZoneName {
            Name(String),
            Object { zone: String },
        }
        let zones: Zones = self.get("/_local/dns").await?;
        let mut names: Vec<String> = match zones {
            Zones::Names(names) => names,
            Zones::Wrapped { zones } => zones
                .into_iter()
                .map(|z| match z {
                    ZoneName::Name(name) | ZoneName::Object { zone: name } => name,
                })
                .collect(),
        };
        names.sort();
        Ok(names)
    }

    pub async fn records(&self, zone: &str) -> Result<ZoneRecordList> {
        self.get(&format!("/_local/dns/{}/records", segment(zone)?))
            .await
    }

    pub async fn add_record(&self, zone: &str, record: &NewZoneRecord) -> Result<ZoneRecord> {
        self.call(
            Method::POST,
            &format!("/_local/dns/{}/records", segment(zone)?),
            Some(record),
        )
        .await?
        .ok_or_else(empty_answer)
    }

    pub async fn delete_record(&self, zone: &str, id: &str) -> Result<()> {
        self.call::<serde_json::Value>(
            Method::DELETE,
            &format!("/_local/dns/{}/records/{}", segment(zone)?, segment(id)?),
            None::<&()>,
        )
        .await
        .map(drop)
    }

    /// Sets the signatures a zone gets: `expired` shows a DNSSEC problem, `valid` mends it.
    pub async fn set_zone_signatures(
        &self,
        zone: &str,
        signatures: ZoneSignatures,
    ) -> Result<ZoneDnssec> {
        self.call(
            Method::PUT,
            &format!("/_local/dns/{}/dnssec", segment(zone)?),
            Some(&ZoneDnssec { signatures }),
        )
        .await?
        .ok_or_else(empty_answer)
    }

    pub async fn add_zone(&self, zone: &str) -> Result<()> {
        let body = NewZone {
            zone: zone.to_owned(),
        };
        let created: Option<ZoneRecordList> =
            self.call(Method::POST, "/_local/dns", Some(&body)).await?;
        let name = created.map_or_else(|| zone.to_ascii_lowercase(), |list| list.zone);
        self.added().insert(name);
        Ok(())
    }

    pub async fn clock(&self) -> Result<ClockState> {
        self.get("/_local/clock").await
    }

    pub async fn set_clock_speed(&self, speed: f64) -> Result<ClockState> {
        if !speed.is_finite() || !(0.0..=100_000.0).contains(&speed) {
            return Err(Error::InvalidInput(
                "The clock's speed is a number from 0 (stopped) to 100000.".into(),
            ));
        }
        let now = self.clock().await?.now;
        self.call(
            Method::PUT,
            "/_local/clock",
            Some(&ClockState { now, speed }),
        )
        .await?
        .ok_or_else(empty_answer)
    }

    pub async fn advance_clock(&self, seconds: f64) -> Result<ClockState> {
        if !seconds.is_finite() || !(0.0..=31_536_000.0).contains(&seconds) {
            return Err(Error::InvalidInput(
                "The clock moves forward by 0 seconds to a year.".into(),
            ));
        }
        self.call(
            Method::POST,
            "/_local/clock/advance",
            Some(&ClockAdvance { seconds }),
        )
        .await?
        .ok_or_else(empty_answer)
    }

    /// Every hostname attached to a project of any of the service's demo accounts (`info`
    /// is this service's `/_local/info`), so the doctor can tell a dangling CNAME. The API
    /// calls go through `clients`' queues at background priority, paced by the service's
    /// clock, so they share each demo key's budget with the rest of the process.
    pub async fn attached_hostnames(
        &self,
        info: &LocalInfo,
        clients: &ClientPool,
    ) -> Result<BTreeSet<String>> {
        Ok(self
            .attached_domains(info, clients)
            .await?
            .into_iter()
            .map(|domain| domain.hostname)
            .collect())
    }

    /// As [`Self::attached_hostnames`], the domains themselves (with their certificates, so
    /// the doctor also knows which names are live).
    pub async fn attached_domains(
        &self,
        info: &LocalInfo,
        clients: &ClientPool,
    ) -> Result<Vec<Domain>> {
        let speed = self.clock().await?.speed;
        let mut attached = Vec::new();
        for (plan, key) in &info.demo_keys {
            let mut config = ClientConfig::new(&self.base, key.as_str());
            if let Some(plan) = Plan::ALL.into_iter().find(|p| p.as_str() == plan) {
                config = config.plan(plan);
            }
            // A stopped clock never resets a window: pace as if it ran in real time.
            config.queue.platform_clock_speed = if speed > 0.0 { speed } else { 1.0 };
            let client = clients.client(config)?.background();
            for project in client.projects().await? {
                attached.extend(client.domains(&project.id).await?);
            }
        }
        Ok(attached)
    }

    pub async fn reset(&self) -> Result<()> {
        self.call::<serde_json::Value>(Method::POST, "/_local/reset", None::<&()>)
            .await?;
        self.added().clear();
        Ok(())
    }
}

fn empty_answer() -> Error {
    Error::Control {
        code: "decode".into(),
        message: "The offline demo's service sent an empty answer.".into(),
    }
}

/// A zone name or record id as one URL path segment: letters, digits, `.`, `-`, `_` only.
fn segment(text: &str) -> Result<&str> {
    let ok = !text.is_empty()
        && !text.bytes().all(|b| b == b'.')
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
    if ok {
        Ok(text)
    } else {
        Err(Error::InvalidInput(format!(
            "“{text}” is not a zone name or record id."
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_cannot_escape_their_route() {
        assert!(segment("example.co.uk").is_ok());
        assert!(segment("rec_12-a").is_ok());
        assert!(segment("../reset").is_err());
        assert!(segment("a/b").is_err());
        assert!(segment("").is_err());
        assert!(segment("..").is_err());
    }
}

//! A service on a frozen clock with an in-memory (or file) database, and a small request
//! helper that returns status, headers and JSON.

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use chrono::{DateTime, Utc};
use domain_desk_api::Plan;
use domain_desk_service::{AppState, Clock, ServiceSettings, Storage, app};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

/// 10:00:10 on a Monday: ten seconds into a minute window, well inside the day.
pub const START: &str = "2026-03-02T10:00:10Z";

pub fn at(text: &str) -> DateTime<Utc> {
    text.parse().expect("test timestamp")
}

pub struct TestService {
    pub state: AppState,
    pub router: Router,
}

#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    pub raw: Vec<u8>,
}

impl Reply {
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn int_header(&self, name: &str) -> i64 {
        self.header(name)
            .unwrap_or_else(|| panic!("no {name} header"))
            .parse()
            .unwrap_or_else(|_| panic!("{name} is not an integer"))
    }

    #[track_caller]
    pub fn expect(&self, status: u16) -> &Self {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            String::from_utf8_lossy(&self.raw)
        );
        self
    }

    #[track_caller]
    pub fn expect_error(&self, status: u16, code: &str) -> &Self {
        self.expect(status);
        assert_eq!(self.code(), code, "body: {}", self.body);
        assert!(
            self.body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "error without a message: {}",
            self.body
        );
        self
    }
}

pub use domain_desk_test_support::loopback_settings;

impl TestService {
    pub fn new() -> Self {
        Self::with_settings(ServiceSettings::default())
    }

    pub fn with_settings(settings: ServiceSettings) -> Self {
        let clock = Clock::frozen_at(at(START));
        let state = AppState::open(settings, clock).expect("service opens");
        Self::from_state(state)
    }

    pub fn with_file(path: &std::path::Path) -> Self {
        Self::with_settings(ServiceSettings {
            storage: Storage::File(path.to_owned()),
            ..ServiceSettings::default()
        })
    }

    pub fn from_state(state: AppState) -> Self {
        let router = app(state.clone());
        Self { state, router }
    }

    pub async fn key(&self, plan: Plan) -> String {
        self.state
            .demo_keys()
            .await
            .expect("demo keys")
            .into_iter()
            .find(|(p, _)| *p == plan)
            .map(|(_, key)| key)
            .expect("a key per plan")
    }

    pub fn advance(&self, seconds: f64) {
        self.state
            .clock()
            .advance_seconds(seconds)
            .expect("advance");
    }

    pub async fn request(&self, request: Request<Body>) -> Reply {
        let response = self
            .router
            .clone()
            .oneshot(request)
            .await
            .expect("the router never fails");
        let status = response.status();
        let headers = response.headers().clone();
        let raw = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes()
            .to_vec();
        let html = headers
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/html"));
        let body = if raw.is_empty() {
            Value::Null
        } else if html {
            // The Domain Connect pages: kept as text.
            Value::String(String::from_utf8_lossy(&raw).into_owned())
        } else {
            serde_json::from_slice(&raw)
                .unwrap_or_else(|_| panic!("answer is not JSON: {}", String::from_utf8_lossy(&raw)))
        };
        Reply {
            status,
            headers,
            body,
            raw,
        }
    }

    /// A request with an optional key and an optional JSON body.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        key: Option<&str>,
        body: Option<Value>,
    ) -> Reply {
        let mut builder = Request::builder().method(method).uri(path);
        if let Some(key) = key {
            builder = builder.header("authorization", format!("Bearer {key}"));
        }
        let request = match body {
            Some(body) => builder
                .header("content-type", "application/json")
                .body(Body::from(body.to_string())),
            None => builder.body(Body::empty()),
        }
        .expect("request");
        self.request(request).await
    }

    pub async fn get(&self, path: &str, key: &str) -> Reply {
        self.call(Method::GET, path, Some(key), None).await
    }

    pub async fn post(&self, path: &str, key: &str, body: Value) -> Reply {
        self.call(Method::POST, path, Some(key), Some(body)).await
    }

    pub async fn put(&self, path: &str, key: &str, body: Value) -> Reply {
        self.call(Method::PUT, path, Some(key), Some(body)).await
    }

    pub async fn delete(&self, path: &str, key: &str) -> Reply {
        self.call(Method::DELETE, path, Some(key), None).await
    }

    /// A new project of `key`'s account with one successful deploy; returns its id.
    pub async fn deployed_project(&self, key: &str, name: &str) -> String {
        domain_desk_test_support::deployed_project(&self.state, key, name).await
    }

    pub async fn add_domain(&self, key: &str, project: &str, body: Value) -> Reply {
        self.post(&format!("/v1/projects/{project}/domains"), key, body)
            .await
    }
}

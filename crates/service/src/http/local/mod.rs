//! The control plane under `/_local`: no API key, never rate limited, and only for the local
//! user. It answers only requests whose `Host` names this machine's loopback (`localhost`,
//! `127.0.0.1`, `[::1]`; else `403 forbidden_host`, which defeats DNS rebinding), and every
//! `POST` or `PUT` must say `Content-Type: application/json` (else `415`), which a web page
//! cannot send without a CORS preflight this service never grants. `DELETE` carries no body
//! and is never a "simple" cross-site request, so it needs no content type.
//! The demo DNS provider's endpoints belong to the DNS world and are added with it.

pub mod clock;
pub mod dns;
pub mod faults;
pub mod info;
pub mod reset;

use std::net::IpAddr;

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain_desk_api::ErrorCode;

use crate::Error;

/// True for a `Host` value that names the loopback: `localhost` (and names under it), an
/// address in 127.0.0.0/8 or `::1`, with or without a port.
pub fn is_loopback_host(value: &str) -> bool {
    let value = value.trim();
    let host = if let Ok(ip) = value.parse::<IpAddr>() {
        return ip.is_loopback();
    } else if let Some(rest) = value.strip_prefix('[') {
        match rest.split_once(']') {
            Some((inside, _)) => inside,
            None => return false,
        }
    } else {
        match value.rsplit_once(':') {
            Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
            Some(_) => return false,
            None => value,
        }
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Middleware: the control plane's rules (see the module's documentation). Requests outside
/// `/_local` pass untouched.
pub async fn guard(request: Request, next: Next) -> Response {
    if !request.uri().path().starts_with("/_local") {
        return next.run(request).await;
    }
    // A request without Host (HTTP/1.0, or a test driving the router) comes from no browser.
    if let Some(host) = request.headers().get(header::HOST) {
        if !host.to_str().is_ok_and(is_loopback_host) {
            return Error::api(
                StatusCode::FORBIDDEN,
                ErrorCode::ForbiddenHost,
                "The control plane answers only requests addressed to this machine's loopback \
                 (localhost, 127.0.0.1 or [::1]).",
            )
            .into_response();
        }
    }
    // The content type is checked by each mutation after routing (so a method a path does not
    // have is still `405`): the JSON body extractor for those with a body, `reset` itself for
    // the one without.
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::is_loopback_host;

    #[test]
    fn loopback_hosts_and_others() {
        for ok in [
            "localhost",
            "localhost:8787",
            "LOCALHOST.",
            "app.localhost:1",
            "127.0.0.1",
            "127.0.0.1:8787",
            "127.9.9.9:80",
            "[::1]:8787",
            "[::1]",
            "::1",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "example.com",
            "evil.example:8787",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
            "192.168.1.10:8787",
            "[::2]:8787",
            "[::1",
            "localhost:80a",
            "",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }
}

//! Domain Connect's HTTP face under `/v2` (the standard's paths; see [`crate::domain_connect`]):
//! the settings document, the template support query, and the synchronous flow's consent page
//! with its Apply and Cancel.
//!
//! The consent page is a real page for a person: every value in it (names, record values,
//! template names, the reason for a refusal) is HTML-escaped, it may not be framed, and its
//! form carries a token bound to the exact request, so only a page this service served can
//! apply. Like the control plane it answers only a loopback `Host` (against DNS rebinding).
//! A refusal is a page that says why, with a 4xx status.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use domain_desk_api::ErrorBody;
use domain_desk_api::domain_connect::{ProviderSettings, TemplateSupport, sync_error};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::domain_connect::{self, CheckedRequest, Refusal};
use crate::http::extract::ApiPath;
use crate::http::local::is_loopback_host;
use crate::http::state::AppState;
use crate::{Error, Result};

#[utoipa::path(
    get,
    path = "/v2/{domain}/settings",
    tag = "domainconnect",
    summary = "Domain Connect settings of a zone this DNS provider serves (discovered through `_domainconnect` TXT)",
    params(("domain" = String, Path, description = "The zone, e.g. example.com")),
    responses(
        (status = 200, description = "Who the provider is and where its flows live", body = ProviderSettings),
        (status = 404, description = "`not_found`: the provider holds no such zone", body = ErrorBody),
    ),
)]
pub async fn get_settings(
    State(state): State<AppState>,
    ApiPath(domain): ApiPath<String>,
) -> Result<Json<ProviderSettings>> {
    let world = state.require_demo_dns()?;
    let zone = domain.trim_end_matches('.').to_ascii_lowercase();
    if !world.zones().zone_names().contains(&zone) {
        return Err(Error::not_found(format!(
            "The local DNS provider holds no zone {zone}."
        )));
    }
    Ok(Json(domain_connect::settings(
        &format!("http://{}", state.api_addr()),
        &state.settings().platform_domain,
    )))
}

#[utoipa::path(
    get,
    path = "/v2/domainTemplates/providers/{provider_id}/services/{service_id}",
    tag = "domainconnect",
    summary = "Whether this DNS provider supports a Domain Connect template",
    params(
        ("provider_id" = String, Path, description = "The template's providerId"),
        ("service_id" = String, Path, description = "The template's serviceId"),
    ),
    responses(
        (status = 200, description = "Supported", body = TemplateSupport),
        (status = 404, description = "`not_found`: not supported", body = ErrorBody),
    ),
)]
pub async fn get_template(
    State(state): State<AppState>,
    ApiPath((provider_id, service_id)): ApiPath<(String, String)>,
) -> Result<Json<TemplateSupport>> {
    let world = state.require_demo_dns()?;
    let template = world
        .domain_connect()
        .template(&provider_id, &service_id)
        .ok_or_else(|| {
            Error::not_found(format!(
                "The local DNS provider does not support the template {provider_id}/{service_id}."
            ))
        })?;
    Ok(Json(TemplateSupport {
        provider_id: template.provider_id.clone(),
        service_id: template.service_id.clone(),
        version: template.version,
    }))
}

/// What the consent page's form sends back.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ConsentForm {
    /// The apply request's query string, as it came.
    pub query: String,
    /// Binds the form to that request.
    pub token: String,
    /// `apply` or `cancel`.
    pub action: String,
}

#[utoipa::path(
    get,
    path = "/v2/domainTemplates/providers/{provider_id}/services/{service_id}/apply",
    tag = "domainconnect",
    summary = "The synchronous flow's consent page: the records a template will write, with Apply and Cancel",
    params(
        ("provider_id" = String, Path, description = "The template's providerId"),
        ("service_id" = String, Path, description = "The template's serviceId"),
        ("domain" = String, Query, description = "The zone"),
        ("host" = Option<String>, Query, description = "The name under the zone the template applies to"),
        ("redirect_uri" = Option<String>, Query, description = "Where the browser goes afterwards (within the template's syncRedirectDomain)"),
        ("state" = Option<String>, Query, description = "Passed back to redirect_uri"),
        ("sig" = Option<String>, Query, description = "RSA-SHA256 signature of the query string (base64), when the template names syncPubKeyDomain"),
        ("key" = Option<String>, Query, description = "The label under syncPubKeyDomain where the public key is published (TXT)"),
    ),
    responses(
        (status = 200, description = "The consent page", content_type = "text/html", body = String),
        (status = 400, description = "A page saying what is wrong with the request", content_type = "text/html", body = String),
        (status = 403, description = "A page saying why the signature (or the Host) was refused", content_type = "text/html", body = String),
        (status = 404, description = "A page saying the template or the zone is not supported here", content_type = "text/html", body = String),
    ),
)]
pub async fn consent_page(
    State(state): State<AppState>,
    ApiPath((provider_id, service_id)): ApiPath<(String, String)>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let raw_query = uri.query().unwrap_or_default().to_owned();
    match checked(&state, &headers, &provider_id, &service_id, &raw_query) {
        Ok((checked, provider)) => {
            let token = provider.consent_token(&raw_query);
            page(
                StatusCode::OK,
                "Apply DNS changes?",
                &consent_body(&checked, &raw_query, &token),
            )
        }
        Err(refusal) => refused(&refusal),
    }
}

#[utoipa::path(
    post,
    path = "/v2/domainTemplates/providers/{provider_id}/services/{service_id}/apply",
    tag = "domainconnect",
    summary = "Apply or Cancel from the consent page; then back to redirect_uri (with `error=access_denied` on Cancel)",
    params(
        ("provider_id" = String, Path, description = "The template's providerId"),
        ("service_id" = String, Path, description = "The template's serviceId"),
    ),
    request_body(content = ConsentForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "Done, without a redirect_uri: a page saying so", content_type = "text/html", body = String),
        (status = 303, description = "Back to redirect_uri, with `state`, and `error=access_denied` when cancelled"),
        (status = 400, description = "A page saying what is wrong with the form or the request", content_type = "text/html", body = String),
        (status = 403, description = "A page saying why the signature, the form's token or the Host was refused", content_type = "text/html", body = String),
        (status = 404, description = "A page saying the template or the zone is not supported here", content_type = "text/html", body = String),
        (status = 409, description = "A page saying which record the zone refused", content_type = "text/html", body = String),
    ),
)]
pub async fn apply_or_cancel(
    State(state): State<AppState>,
    ApiPath((provider_id, service_id)): ApiPath<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Ok(form) = serde_urlencoded::from_bytes::<ConsentForm>(&body) else {
        return refused(&Refusal::bad_request(
            "The form is incomplete: it needs query, token and action.",
        ));
    };
    let (checked, provider) =
        match checked(&state, &headers, &provider_id, &service_id, &form.query) {
            Ok(found) => found,
            Err(refusal) => return refused(&refusal),
        };
    if !provider.consent_token_matches(&form.query, &form.token) {
        return refused(&Refusal::forbidden(
            "This form was not served by the local DNS provider for this request; open the consent page again.",
        ));
    }
    match form.action.as_str() {
        "cancel" => {
            tracing::info!(zone = %checked.zone, "Domain Connect apply cancelled");
            finish(
                &checked,
                &[
                    ("error", sync_error::ACCESS_DENIED),
                    ("error_description", "user_cancel"),
                ],
                "Cancelled",
                "Nothing was changed.",
            )
        }
        "apply" => {
            let Ok(world) = state.require_demo_dns() else {
                return refused(&Refusal::not_supported(
                    "The local DNS provider is not running.",
                ));
            };
            let (zones, now, plan) = (world.zones().clone(), state.now(), checked.clone());
            match tokio::task::spawn_blocking(move || domain_connect::apply(&zones, &plan, now))
                .await
            {
                Ok(Ok(())) => finish(
                    &checked,
                    &[],
                    "Applied",
                    &format!("The records for {} are in place.", checked.fqdn),
                ),
                Ok(Err(error)) if error.status().is_client_error() => refused(&Refusal {
                    status: error.status(),
                    reason: error.to_string(),
                }),
                Ok(Err(error)) => {
                    tracing::error!(%error, "applying a Domain Connect template failed");
                    page(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "Something went wrong",
                        "<p>The records could not be written; the error was logged.</p>",
                    )
                }
                Err(error) => {
                    tracing::error!(%error, "applying a Domain Connect template failed");
                    page(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "Something went wrong",
                        "<p>The records could not be written; the error was logged.</p>",
                    )
                }
            }
        }
        other => refused(&Refusal::bad_request(format!(
            "The form's action is {other:?}; it must be apply or cancel."
        ))),
    }
}

type Checked = (CheckedRequest, std::sync::Arc<domain_connect::Provider>);

fn checked(
    state: &AppState,
    headers: &HeaderMap,
    provider_id: &str,
    service_id: &str,
    raw_query: &str,
) -> std::result::Result<Checked, Refusal> {
    if let Some(host) = headers.get(header::HOST) {
        if !host.to_str().is_ok_and(is_loopback_host) {
            return Err(Refusal::forbidden(
                "The local DNS provider's pages answer only requests addressed to this machine's loopback (localhost, 127.0.0.1 or [::1]).",
            ));
        }
    }
    let world = state
        .require_demo_dns()
        .map_err(|_| Refusal::not_supported("The local DNS provider is not running."))?;
    let uri: Uri = format!("/?{raw_query}")
        .parse()
        .map_err(|_| Refusal::bad_request("The query string is not valid."))?;
    let Query(pairs) = Query::<Vec<(String, String)>>::try_from_uri(&uri)
        .map_err(|_| Refusal::bad_request("The query string cannot be read."))?;
    let provider = world.domain_connect_arc();
    let checked = domain_connect::check_request(
        &provider,
        world.zones(),
        provider_id,
        service_id,
        raw_query,
        &pairs,
    )?;
    Ok((checked, provider))
}

/// Back to `redirect_uri` (303) with `state` and `extra`, or a page saying `title`.
fn finish(checked: &CheckedRequest, extra: &[(&str, &str)], title: &str, said: &str) -> Response {
    match &checked.redirect_uri {
        Some(uri) => {
            let mut params: Vec<(&str, &str)> = Vec::new();
            if let Some(state) = &checked.state {
                params.push(("state", state));
            }
            params.extend_from_slice(extra);
            let location = domain_connect::with_query(uri, &params);
            match HeaderValue::from_str(&location) {
                Ok(value) => (StatusCode::SEE_OTHER, [(header::LOCATION, value)]).into_response(),
                Err(_) => refused(&Refusal::bad_request(
                    "The redirect_uri cannot be sent back.",
                )),
            }
        }
        None => page(StatusCode::OK, title, &format!("<p>{}</p>", escape(said))),
    }
}

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn record_rows<'a>(rows: impl Iterator<Item = (&'a str, String, &'a str, u32)>) -> String {
    rows.map(|(kind, name, value, ttl)| {
        format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{ttl}</td></tr>",
            escape(kind),
            escape(&name),
            escape(value)
        )
    })
    .collect()
}

fn consent_body(checked: &CheckedRequest, raw_query: &str, token: &str) -> String {
    let absolute = |name: &str| {
        if name == "@" {
            checked.zone.clone()
        } else {
            format!("{name}.{}", checked.zone)
        }
    };
    let add = record_rows(checked.add.iter().map(|record| {
        (
            record.record_type.as_str(),
            absolute(&record.name),
            record.value.as_str(),
            record.ttl,
        )
    }));
    let remove = record_rows(checked.remove.iter().map(|record| {
        (
            record.record_type.as_str(),
            absolute(&record.name),
            record.value.as_str(),
            record.ttl,
        )
    }));
    let table = |rows: &str| {
        format!(
            "<table><thead><tr><th>Type</th><th>Name</th><th>Value</th><th>TTL</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    };
    let mut body = format!(
        "<p><strong>{}</strong> asks to set up <strong>{}</strong> on <strong>{}</strong>.</p>",
        escape(&checked.provider_name),
        escape(&checked.service_name),
        escape(&checked.fqdn)
    );
    if checked.add.is_empty() {
        body.push_str("<p>The records are already in place; applying changes nothing.</p>");
    } else {
        body.push_str("<h2>Records to add</h2>");
        body.push_str(&table(&add));
    }
    if !checked.remove.is_empty() {
        body.push_str("<h2>Records to delete (they conflict)</h2>");
        body.push_str(&table(&remove));
    }
    if let Some(uri) = &checked.redirect_uri {
        body.push_str(&format!(
            "<p>Afterwards your browser returns to <code>{}</code>.</p>",
            escape(uri)
        ));
    }
    body.push_str(&format!(
        "<form method=\"post\"><input type=\"hidden\" name=\"query\" value=\"{}\"><input type=\"hidden\" name=\"token\" value=\"{}\"><button type=\"submit\" name=\"action\" value=\"apply\">Apply</button> <button type=\"submit\" name=\"action\" value=\"cancel\">Cancel</button></form>",
        escape(raw_query),
        escape(token)
    ));
    body
}

fn refused(refusal: &Refusal) -> Response {
    page(
        refusal.status,
        "Request refused",
        &format!(
            "<p>{}</p><p>Nothing was changed.</p>",
            escape(&refusal.reason)
        ),
    )
}

/// A whole page: no scripts, no framing, no caching, nothing sent on as a referrer.
fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title} — {provider}</title><style>body{{font-family:sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}}table{{border-collapse:collapse}}td,th{{border:1px solid #999;padding:.3rem .6rem;text-align:left}}button{{margin:1rem .5rem 0 0;padding:.4rem 1.2rem}}</style></head><body><h1>{title}</h1>{body}<p><small>{provider}</small></p></body></html>",
        title = escape(title),
        provider = escape(domain_connect::PROVIDER_NAME),
    );
    let mut response = (status, html).into_response();
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        ),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-store"),
        (header::REFERRER_POLICY, "no-referrer"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markup_in_values_stays_text() {
        assert_eq!(
            escape(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
    }
}

//! The platform API `/v1`, one resource per file.

pub mod account;
pub mod deploys;
pub mod domain_config;
pub mod domain_move;
pub mod domains;
pub mod ownership;
pub mod projects;
pub mod rate_limit;

use domain_desk_api::Hostname;

use crate::Error;

/// A domain's name from a URL path (a wildcard too): one that cannot be valid names no
/// domain, so `404`.
pub(crate) fn path_hostname(raw: &str) -> Result<Hostname, Error> {
    Hostname::parse_domain(raw).map_err(|_| Error::not_found(format!("No domain {raw} here.")))
}

/// A list's answer, `{"<field>":[…],"next_cursor":…}`, from the page's items already written
/// as a JSON array (`store::fast::domain_json::write_page`): the array is not parsed again.
pub(crate) fn list_response(
    field: &str,
    mut items: Vec<u8>,
    next_cursor: Option<&str>,
) -> Result<axum::response::Response, Error> {
    use axum::response::IntoResponse;

    let mut head = Vec::with_capacity(field.len() + 5);
    head.extend_from_slice(b"{\"");
    head.extend_from_slice(field.as_bytes());
    head.extend_from_slice(b"\":");
    items.splice(0..0, head);
    items.extend_from_slice(b",\"next_cursor\":");
    serde_json::to_writer(&mut items, &next_cursor)?;
    items.push(b'}');
    Ok((
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        items,
    )
        .into_response())
}

//! Request extractors that answer in the contract's error shape: a JSON body with the right
//! status for each way it can be wrong, path parameters, and the authenticated caller.

use axum::body::Body;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use bytes::Bytes;
use domain_desk_api::{Account, ErrorCode};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::http::state::AppState;
use crate::{Error, Result};

/// Reads a whole body, refusing one larger than `limit` with `413 payload_too_large`.
pub async fn read_body(body: Body, limit: usize) -> Result<Bytes> {
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(err) if err.downcast_ref::<LengthLimitError>().is_some() => Err(too_large(limit)),
        Err(err) => Err(Error::api(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidJson,
            format!("The request body could not be read: {err}."),
        )),
    }
}

pub fn too_large(limit: usize) -> Error {
    Error::api(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::PayloadTooLarge,
        format!(
            "The request body is larger than the limit of {} MB.",
            limit / (1024 * 1024)
        ),
    )
}

/// Refuses a body whose declared length is already over the limit, before reading it.
fn check_declared_length(parts_headers: &axum::http::HeaderMap, limit: usize) -> Result<()> {
    let declared = parts_headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    match declared {
        Some(length) if length > limit as u64 => Err(too_large(limit)),
        _ => Ok(()),
    }
}

pub(crate) fn is_json_content_type(headers: &axum::http::HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let mime = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

pub(crate) fn unsupported_media_type() -> Error {
    Error::api(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ErrorCode::UnsupportedMediaType,
        "Send the body as JSON with `Content-Type: application/json`.",
    )
}

/// Parses JSON: broken JSON is `400 invalid_json`, JSON of the wrong shape `422
/// validation_failed`.
///
/// Every object of a request body must be given as a JSON object. serde would also read a
/// struct from an array of its fields in order (`["shop"]` as `{"name": "shop"}`, or a
/// redirect rule as `["old.example.com", "example.com", 301]`), which the OpenAPI document
/// does not allow; such a body is refused.
pub fn parse_json<T: DeserializeOwned + Serialize>(bytes: &[u8]) -> Result<T> {
    let parsed: T = serde_json::from_slice(bytes).map_err(|err| {
        use serde_json::error::Category;
        match err.classify() {
            Category::Data => Error::validation(
                "body",
                format!("The request body does not have the expected fields: {err}."),
            ),
            Category::Syntax | Category::Eof | Category::Io => Error::api(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidJson,
                format!("The request body is not valid JSON: {err}."),
            ),
        }
    })?;
    let given = serde_json::from_slice::<Value>(bytes);
    let read = serde_json::to_value(&parsed);
    if let (Ok(given), Ok(read)) = (given, read) {
        if object_given_as_array(&given, &read) {
            return Err(Error::validation(
                "body",
                "The request body gives an object as an array; write it as a JSON object.",
            ));
        }
    }
    Ok(parsed)
}

/// True when `given` has an array where what was read from it is an object.
fn object_given_as_array(given: &Value, read: &Value) -> bool {
    match (given, read) {
        (Value::Array(_), Value::Object(_)) => true,
        (Value::Array(given), Value::Array(read)) => given
            .iter()
            .zip(read)
            .any(|(given, read)| object_given_as_array(given, read)),
        (Value::Object(given), Value::Object(read)) => read.iter().any(|(name, read)| {
            given
                .get(name)
                .is_some_and(|given| object_given_as_array(given, read))
        }),
        _ => false,
    }
}

/// A JSON request body, checked for type, size and shape.
#[derive(Debug, Clone)]
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned + Serialize> FromRequest<AppState> for ApiJson<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &AppState) -> Result<Self> {
        let limit = state.settings().max_body_bytes;
        check_declared_length(req.headers(), limit)?;
        if !is_json_content_type(req.headers()) {
            return Err(unsupported_media_type());
        }
        let bytes = read_body(req.into_body(), limit).await?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// A JSON body that may be left out entirely (no body, no content type) or be `null`: then
/// `T::default()`.
#[derive(Debug, Clone)]
pub struct OptionalJson<T>(pub T);

impl<T: DeserializeOwned + Serialize + Default> FromRequest<AppState> for OptionalJson<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &AppState) -> Result<Self> {
        let limit = state.settings().max_body_bytes;
        check_declared_length(req.headers(), limit)?;
        let has_type = req.headers().contains_key(header::CONTENT_TYPE);
        if has_type && !is_json_content_type(req.headers()) {
            return Err(unsupported_media_type());
        }
        let bytes = read_body(req.into_body(), limit).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(T::default()));
        }
        if !has_type {
            return Err(unsupported_media_type());
        }
        // `null` is the documented "no body" too.
        parse_json::<Option<T>>(&bytes).map(|body| OptionalJson(body.unwrap_or_default()))
    }
}

/// Path parameters; ones that cannot be read name nothing that exists, so `404 not_found`.
#[derive(Debug, Clone)]
pub struct ApiPath<T>(pub T);

impl<T, S> FromRequestParts<S> for ApiPath<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(value)| ApiPath(value))
            .map_err(|_| Error::not_found("No such resource."))
    }
}

/// The authenticated caller of a `/v1` request, put there by the gate.
#[derive(Debug, Clone)]
pub struct Caller {
    pub account: Account,
    /// The API key the request was sent with. Never logged.
    pub api_key: String,
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(Error::unauthorized)
    }
}

/// `limit` and `cursor` of a list request, checked: a `limit` outside 1 to 1000 is `422
/// invalid_limit`, a cursor this list did not give out `422 invalid_cursor`, and any other
/// query parameter `422 validation_failed` (a misspelt `limt` must not pass unnoticed).
#[derive(Debug, Clone, Default)]
pub struct ListParams {
    limit: Option<String>,
    cursor: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for ListParams {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self> {
        let pairs = axum::extract::Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
            .map_err(|_| Error::validation("query", "The query string is malformed."))?
            .0;
        let mut params = Self::default();
        for (name, value) in pairs {
            let slot = match name.as_str() {
                "limit" => &mut params.limit,
                "cursor" => &mut params.cursor,
                _ => {
                    return Err(Error::validation(
                        "query",
                        format!(
                            "Unknown query parameter {name:?}: lists take `limit` and `cursor`."
                        ),
                    ));
                }
            };
            if slot.replace(value).is_some() {
                return Err(Error::validation(
                    "query",
                    format!("The query parameter {name:?} is given twice."),
                ));
            }
        }
        Ok(params)
    }
}

impl ListParams {
    /// The page asked for in list `scope`.
    pub fn page_request(
        &self,
        key: &crate::store::page::CursorKey,
        scope: crate::store::page::ListScope<'_>,
    ) -> Result<crate::store::page::PageRequest> {
        use crate::store::page;
        let limit = match self.limit.as_deref() {
            None => None,
            Some(text) => Some(text.trim().parse::<i64>().map_err(|_| {
                Error::api(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    ErrorCode::InvalidLimit,
                    format!(
                        "limit must be a whole number from 1 to {}.",
                        page::MAX_LIMIT
                    ),
                )
            })?),
        };
        Ok(page::PageRequest {
            limit: page::check_limit(limit)?,
            after: self
                .cursor
                .as_deref()
                .map(|cursor| key.open(scope, cursor))
                .transpose()?,
        })
    }

    /// A list handler's whole read: the page asked for in `scope` (its items: a `Vec`, or
    /// JSON already written), read by `read` on a reader connection, and the signed cursor of the page after it (`None` on the last page).
    pub async fn read_page<T, F>(
        &self,
        state: &AppState,
        scope: crate::store::page::ListScope<'_>,
        read: F,
    ) -> Result<(T, Option<String>)>
    where
        T: Send + 'static,
        F: FnOnce(
                &rusqlite::Connection,
                &crate::store::page::PageRequest,
            ) -> Result<crate::store::page::Page<T>>
            + Send
            + 'static,
    {
        let request = self.page_request(state.cursor_key(), scope)?;
        let page = state.store().read(move |conn| read(conn, &request)).await?;
        let next_cursor = page
            .next
            .map(|after| state.cursor_key().seal(scope, &after));
        Ok((page.items, next_cursor))
    }
}

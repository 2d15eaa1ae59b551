//! The OpenAPI document, generated from the handlers' own annotations and types (so it cannot
//! drift), then completed with what every `/v1` operation shares: bearer authentication, the
//! rate-limit headers on every response, the errors the gate answers (401, 403, 429, 503),
//! the body errors (400, 413, 415, 422) and the `Idempotency-Key` header on `POST`.

use domain_desk_api::rate_limit::{
    IDEMPOTENCY_KEY, IETF_POLICY, IETF_RATELIMIT, LIMIT, REMAINING, RESET, RETRY_AFTER,
};
use domain_desk_api::{ErrorBody, RateWindow};
use utoipa::OpenApi;
use utoipa::openapi::path::{Operation, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{
    Content, Header, HeaderBuilder, Ref, RefOr, Required, Response, ResponseBuilder,
};

use super::idempotency::{MAX_KEY_LEN, REPLAYED};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Domain Desk platform API",
        version = "1",
        description = "The platform API v1 (custom domains, projects, deploys, rate limits) as \
            the local service implements it, plus its control plane under `/_local`.\n\n\
            Rate limits: two fixed windows per API key, the clock's minute and the UTC day; a \
            request is admitted only if both have room and consumes one unit of each. The \
            `X-RateLimit-*` headers describe the binding window (fewer remaining; on a tie the \
            one resetting first). `RateLimit-Policy` lists both windows, `RateLimit` gives the \
            binding window first, then the other. A `401` carries `X-RateLimit-Limit: 0`, \
            `X-RateLimit-Remaining: 0` and `X-RateLimit-Reset` at the end of the current \
            minute: without a key nothing is admitted. A `403 key_banned` carries \
            `X-RateLimit-Remaining: 0` and `X-RateLimit-Reset` at the end of the ban. More \
            than 10 requests sent while limited (after a 429 and before its Retry-After time) \
            ban the key for 15 minutes; `GET /v1/rate_limit` neither counts nor counts towards \
            the ban. When both windows are used up at once, `Retry-After` counts to the later \
            reset (when a request will be admitted again) and `window` names that window. The \
            local service keeps window counters in memory (a restart opens fresh windows) and \
            persists bans.\n\n\
            Idempotency: a `POST` with `Idempotency-Key` sent again with the same method, path \
            and JSON body within 24 hours gets the first answer again (with \
            `Idempotent-Replayed: true`, byte for byte) instead of acting twice — also when \
            the first answer was lost or the service died after acting: the change and its \
            answer commit in one transaction. With a different request, `422 \
            idempotency_key_reused`; while the first request with the key still runs, `409 \
            idempotency_key_in_use` with `Retry-After: 1`. Keys are per API key (stored as a \
            hash); 5xx answers are not remembered.\n\n\
            Pagination: `GET /v1/projects`, `GET /v1/projects/{project_id}/domains` and `GET \
            /v1/projects/{project_id}/deploys` take `limit` (1 to 1000, default 100) and \
            `cursor` (opaque, the previous page's `next_cursor`); the answer adds \
            `next_cursor`, null on the last page. Order: creation time, then id (a domain's \
            id is its hostname). An item created or deleted while paging is never repeated \
            and no other item is skipped. `422 invalid_limit` for a limit out of range, `422 \
            invalid_cursor` for a cursor that is malformed or from another list, `422 \
            validation_failed` for any other query parameter.\n\n\
            The control plane `/_local` needs no key but answers only requests whose Host is a \
            loopback name or address (else `403 forbidden_host`), and takes a `POST` or `PUT` \
            only with `Content-Type: application/json` (else `415`); `serve` refuses a \
            non-loopback `--api` address unless `--allow-remote` is given.\n\n\
            Faults set with `PUT /_local/faults` apply to admitted `/v1` requests only: added \
            latency, `503 service_unavailable`, or the connection closed without an answer.\n\n\
            Removing a domain re-points redirects that pointed to it at the project's current \
            address: its primary domain if that is live, else its default address.\n\n\
            Verification sees DNS through the platform's resolver: after the propagation \
            delay, and through its negative cache (RFC 2308), which keeps an NXDOMAIN or \
            NODATA for the zone's negative TTL (the demo zones' SOA minimum, 300 s) even once \
            the record exists. A `record_missing` answered from that cache carries \
            `cached_at` and `cached_until` (when the resolver asks again) and says both in \
            its message.",
    ),
    components(schemas(ErrorBody, RateWindow)),
    tags(
        (name = "account", description = "The caller's account and rate limit"),
        (name = "projects", description = "Projects and deploys"),
        (name = "domains", description = "Custom domains, verification and redirects"),
        (name = "local", description = "The local service's control plane (no API key)"),
        (name = "domainconnect", description = "Domain Connect (draft-ietf-dconn-domainconnect): the local DNS provider's settings, template support and synchronous flow (no API key; pages answer a loopback Host only)"),
    ),
)]
pub struct ApiDoc;

fn integer() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::Integer)
}

fn int_header(description: &str) -> Header {
    HeaderBuilder::new()
        .schema(integer())
        .description(Some(description))
        .build()
}

fn text_header(description: &str) -> Header {
    HeaderBuilder::new()
        .schema(ObjectBuilder::new().schema_type(Type::String))
        .description(Some(description))
        .build()
}

fn error_response(description: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            Content::new(Some(Ref::from_schema_name("ErrorBody"))),
        )
        .build()
}

fn add_rate_headers(response: &mut Response) {
    let headers = &mut response.headers;
    headers
        .entry("X-RateLimit-Limit".into())
        .or_insert_with(|| {
            int_header("Requests allowed in the binding window (0 without a valid key).")
        });
    headers
        .entry("X-RateLimit-Remaining".into())
        .or_insert_with(|| {
            int_header("Exactly how many more requests will be admitted before the reset.")
        });
    headers
        .entry("X-RateLimit-Reset".into())
        .or_insert_with(|| {
            int_header("Unix time (seconds) when the binding window resets (or the ban ends).")
        });
    headers.entry("RateLimit-Policy".into()).or_insert_with(|| {
        text_header("IETF draft: both windows, e.g. `\"minute\";q=300;w=60, \"day\";q=10000;w=86400`. Absent on 401.")
    });
    headers.entry("RateLimit".into()).or_insert_with(|| {
        text_header("IETF draft: the binding window first, e.g. `\"minute\";r=12;t=30, \"day\";r=900;t=4000`. Absent on 401.")
    });
}

fn ensure(operation: &mut Operation, status: &str, description: &str) {
    operation
        .responses
        .responses
        .entry(status.to_owned())
        .or_insert_with(|| RefOr::T(error_response(description)));
}

fn add_header(operation: &mut Operation, status: &str, name: &str, header: Header) {
    if let Some(RefOr::T(response)) = operation.responses.responses.get_mut(status) {
        response.headers.entry(name.to_owned()).or_insert(header);
    }
}

fn complete_v1(operation: &mut Operation, method: &str) {
    operation.security = Some(vec![SecurityRequirement::new(
        "bearer",
        Vec::<String>::new(),
    )]);
    ensure(
        operation,
        "401",
        "`unauthorized`: no API key or an unknown one.",
    );
    ensure(
        operation,
        "403",
        "`key_banned` (with `retry_after_seconds` and `banned_until`).",
    );
    ensure(
        operation,
        "404",
        "`not_found`: no such project or domain in this account, or no such path.",
    );
    ensure(
        operation,
        "429",
        "`rate_limited` (with `retry_after_seconds` and `window`). A rejected request consumes nothing.",
    );
    ensure(
        operation,
        "503",
        "`service_unavailable`: an injected fault (see `/_local/faults`).",
    );
    let retry_after = || int_header("Seconds to wait, rounded up.");
    add_header(operation, "429", "Retry-After", retry_after());
    add_header(operation, "403", "Retry-After", retry_after());
    if method == "post" {
        let parameters = operation.parameters.get_or_insert_with(Vec::new);
        parameters.push(
            ParameterBuilder::new()
                .name("Idempotency-Key")
                .parameter_in(ParameterIn::Header)
                .required(Required::False)
                .description(Some(
                    "Sent again with the same request within 24 hours, returns the first answer instead of acting twice.",
                ))
                .schema(Some(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .min_length(Some(1))
                        .max_length(Some(MAX_KEY_LEN))
                        .pattern(Some("^[!-~]+$")),
                ))
                .build(),
        );
        ensure(
            operation,
            "422",
            "`validation_failed` (a malformed Idempotency-Key) or `idempotency_key_reused`.",
        );
        ensure(
            operation,
            "409",
            "`idempotency_key_in_use`: the first request with this Idempotency-Key still runs; retry after `Retry-After`.",
        );
        if let Some(RefOr::T(conflict)) = operation.responses.responses.get_mut("409") {
            if !conflict.description.contains("idempotency_key_in_use") {
                conflict.description.push_str(
                    " Also `idempotency_key_in_use`: the first request with this Idempotency-Key still runs; retry after `Retry-After`.",
                );
            }
        }
        add_header(operation, "409", "Retry-After", retry_after());
        for response in operation.responses.responses.values_mut() {
            if let RefOr::T(response) = response {
                response
                    .headers
                    .entry(REPLAYED_HEADER.into())
                    .or_insert_with(|| text_header("`true` when this is a remembered answer to an earlier request with the same Idempotency-Key."));
            }
        }
    }
    for response in operation.responses.responses.values_mut() {
        if let RefOr::T(response) = response {
            add_rate_headers(response);
        }
    }
}

const REPLAYED_HEADER: &str = "Idempotent-Replayed";

fn complete_body_errors(operation: &mut Operation) {
    if operation.request_body.is_none() {
        return;
    }
    ensure(operation, "400", "`invalid_json`: the body is not JSON.");
    ensure(
        operation,
        "413",
        "`payload_too_large`: the body is over the size limit (2 MB).",
    );
    ensure(
        operation,
        "415",
        "`unsupported_media_type`: send `Content-Type: application/json`.",
    );
    ensure(
        operation,
        "422",
        "`validation_failed`: JSON of the wrong shape or a value out of range.",
    );
}

/// Completes a generated document with what every operation shares.
pub fn complete(doc: &mut utoipa::openapi::OpenApi) {
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "bearer",
        SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
    );
    for (path, item) in doc.paths.paths.iter_mut() {
        let v1 = path.starts_with("/v1/");
        let operations = [
            ("get", &mut item.get),
            ("put", &mut item.put),
            ("post", &mut item.post),
            ("delete", &mut item.delete),
            ("patch", &mut item.patch),
        ];
        for (method, operation) in operations {
            let Some(operation) = operation else { continue };
            // Domain Connect's form answers its own HTML pages, not the JSON body errors.
            if !path.starts_with("/v2/") {
                complete_body_errors(operation);
            }
            if v1 {
                complete_v1(operation, method);
            }
            if path.starts_with("/_local") {
                ensure(
                    operation,
                    "403",
                    "`forbidden_host`: the control plane answers only requests whose Host is a loopback name or address (localhost, 127.0.0.1, [::1]).",
                );
                if matches!(method, "post" | "put" | "patch") {
                    ensure(
                        operation,
                        "415",
                        "`unsupported_media_type`: every change to the control plane must be sent with `Content-Type: application/json`.",
                    );
                }
            }
        }
    }
    // The header names the gate sets are the shared constants; these keep the document honest
    // if one is renamed.
    debug_assert!(
        [
            LIMIT,
            REMAINING,
            RESET,
            IETF_POLICY,
            IETF_RATELIMIT,
            RETRY_AFTER,
            IDEMPOTENCY_KEY
        ]
        .iter()
        .all(|name| name.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
    );
    debug_assert_eq!(REPLAYED, REPLAYED_HEADER.to_ascii_lowercase());
}

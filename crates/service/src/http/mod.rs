//! The HTTP face of the service: `/v1` (the platform API), `/_local` (the control plane) and
//! `GET /openapi.json`, all in one [`app`] router that tests drive without a socket.

pub mod domain_connect;
pub mod extract;
pub mod fast;
pub mod gate;
pub mod idempotency;
pub mod local;
pub mod openapi;
pub mod state;
pub mod v1;
pub mod world_gate;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Router, middleware};
use domain_desk_api::ErrorCode;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::Error;
use crate::http::state::AppState;

/// Every documented route, with its document.
pub fn api_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .routes(routes!(v1::account::get_account))
        .routes(routes!(v1::rate_limit::get_rate_limit))
        .routes(routes!(
            v1::projects::list_projects,
            v1::projects::create_project
        ))
        .routes(routes!(v1::projects::get_project))
        .routes(routes!(
            v1::deploys::list_deploys,
            v1::deploys::create_deploy
        ))
        .routes(routes!(v1::domains::list_domains, v1::domains::add_domain))
        .routes(routes!(v1::domains::get_domain, v1::domains::remove_domain))
        .routes(routes!(v1::domains::verify_domain))
        .routes(routes!(v1::domain_move::move_domain))
        .routes(routes!(v1::domains::list_removed_domains))
        .routes(routes!(
            v1::domain_config::get_domain_config,
            v1::domain_config::put_domain_config
        ))
        .routes(routes!(domain_connect::get_settings))
        .routes(routes!(domain_connect::get_template))
        .routes(routes!(
            domain_connect::consent_page,
            domain_connect::apply_or_cancel
        ))
        .routes(routes!(local::info::get_info))
        .routes(routes!(local::clock::get_clock, local::clock::put_clock))
        .routes(routes!(local::clock::advance_clock))
        .routes(routes!(
            local::faults::get_faults,
            local::faults::put_faults
        ))
        .routes(routes!(local::reset::post_reset))
        .routes(routes!(local::dns::list_zones, local::dns::add_zone))
        .routes(routes!(local::dns::list_records, local::dns::add_record))
        .routes(routes!(local::dns::delete_record))
        .routes(routes!(local::dns::set_dnssec))
}

/// The generated OpenAPI document, completed (see [`openapi`]).
pub fn openapi_document() -> utoipa::openapi::OpenApi {
    let (_, mut doc) = api_router().split_for_parts();
    add_openapi_path(&mut doc);
    openapi::complete(&mut doc);
    doc
}

fn add_openapi_path(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::path::{HttpMethod, OperationBuilder, PathItem};
    use utoipa::openapi::{ContentBuilder, ResponseBuilder, schema::ObjectBuilder};
    let operation = OperationBuilder::new()
        .summary(Some("This OpenAPI document"))
        .tag("local")
        .response(
            "200",
            ResponseBuilder::new()
                .description("The OpenAPI 3.1 document of this service")
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(ObjectBuilder::new()))
                        .build(),
                ),
        )
        .build();
    doc.paths.paths.insert(
        "/openapi.json".into(),
        PathItem::new(HttpMethod::Get, operation),
    );
}

async fn serve_openapi(State(document): State<std::sync::Arc<serde_json::Value>>) -> Response {
    (
        [(header::CACHE_CONTROL, "no-cache")],
        Json((*document).clone()),
    )
        .into_response()
}

async fn not_found(req: Request) -> Error {
    Error::not_found(format!("No such path: {}.", req.uri().path()))
}

async fn method_not_allowed(req: Request) -> Error {
    Error::api(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::MethodNotAllowed,
        format!("{} is not allowed on {}.", req.method(), req.uri().path()),
    )
}

/// The paths `router` routes (not its fallbacks), so that a test can compare them with the
/// OpenAPI document's. axum lists them only in its debug description: `RouteId(n): "/path"`
/// entries before the fallback router.
pub fn routed_paths(router: &Router) -> std::collections::BTreeSet<String> {
    let description = format!("{router:?}");
    let routed = description
        .split("fallback_router:")
        .next()
        .unwrap_or_default();
    routed
        .split("RouteId(")
        .filter_map(|entry| {
            let rest = entry.trim_start_matches(|c: char| c.is_ascii_digit());
            let path = rest.strip_prefix("): \"")?;
            Some(path[..path.find('"')?].to_owned())
        })
        .filter(|path| !path.contains("__private__axum"))
        .collect()
}

/// The whole HTTP service for `state`.
pub fn app(state: AppState) -> Router {
    let (router, _) = api_router().split_for_parts();
    let document = match serde_json::to_value(openapi_document()) {
        Ok(value) => value,
        Err(err) => {
            tracing::error!(error = %err, "the OpenAPI document does not serialise");
            serde_json::json!({})
        }
    };
    let openapi = Router::new()
        .route("/openapi.json", get(serve_openapi))
        .with_state(std::sync::Arc::new(document));
    outer_layers(behind_gate(router, state).merge(openapi))
}

/// `routes` behind the API's own layers: the fallbacks, the read cache, the world's clock,
/// and the key and rate-limit gate. [`app`] gives it the documented routes; a test can give
/// it one more (a handler that panics) and meet the same stack the service runs.
fn behind_gate(routes: Router<AppState>, state: AppState) -> Router {
    routes
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(
            state.clone(),
            fast::read_cache::serve_cached,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            world_gate::keep_world_current,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), gate::gate))
        .with_state(state)
}

/// The layers around everything the service answers: the control plane's guard, and the
/// catch-panic layer that turns a handler's panic into a 500 (in a binary that unwinds).
fn outer_layers(router: Router) -> Router {
    router.layer(middleware::from_fn(local::guard)).layer(
        tower_http::catch_panic::CatchPanicLayer::custom(|_: Box<dyn std::any::Any + Send>| {
            tracing::error!("a request handler panicked");
            Error::Internal("a request handler panicked".into()).into_response()
        }),
    )
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    use super::*;
    use crate::{Clock, ServiceSettings};

    async fn call(router: &Router, path: &str, key: &str) -> (StatusCode, serde_json::Value) {
        let request = Request::get(path)
            .header("authorization", format!("Bearer {key}"))
            .body(Body::empty())
            .unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&body).unwrap())
    }

    /// A handler that panics answers 500 with the contract's error body, through every layer
    /// the real service has, and the service goes on answering: the panic stays in the
    /// request (as long as the binary unwinds; see the next test).
    #[tokio::test]
    async fn a_handler_that_panics_answers_500_and_the_next_request_is_served() {
        let clock = Clock::frozen_at("2026-03-02T10:00:10Z".parse().unwrap());
        let state = AppState::open(ServiceSettings::default(), clock).unwrap();
        let (_, key) = state.demo_keys().await.unwrap().remove(0);
        let (routes, _) = api_router().split_for_parts();
        let routes = routes.route(
            "/v1/panics",
            get(|| async {
                panic!("a bug in a handler");
                #[allow(unreachable_code)]
                ()
            }),
        );
        let router = outer_layers(behind_gate(routes, state));

        let (status, body) = call(&router, "/v1/panics", &key).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(body["error"]["code"], "internal", "{body}");
        assert_eq!(
            body["error"]["message"],
            "Something went wrong in the service; the error was logged."
        );
        let (status, body) = call(&router, "/v1/account", &key).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }

    /// The catch-panic layer above only works in a binary that unwinds: with
    /// `panic = "abort"` a handler's panic ends the process, and with it the window that
    /// embeds the demo service. Every profile the product is built with must unwind.
    #[test]
    fn the_release_profiles_unwind_on_a_panic() {
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        let mut section = String::new();
        let mut aborting = Vec::new();
        for line in text.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line.trim_matches(['[', ']']).to_owned();
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let value = value.split('#').next().unwrap_or_default().trim();
            if section.starts_with("profile.") && key.trim() == "panic" && value != "\"unwind\"" {
                aborting.push(format!("[{section}] panic = {value}"));
            }
        }
        assert!(aborting.is_empty(), "{}", aborting.join(", "));
    }
}

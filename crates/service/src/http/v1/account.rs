//! `GET /v1/account`: the caller's account, plan and limits.

use axum::Json;
use domain_desk_api::Account;

use crate::http::extract::Caller;

#[utoipa::path(
    get,
    path = "/v1/account",
    tag = "account",
    summary = "The account the API key belongs to",
    responses((status = 200, description = "The account, its plan and limits", body = Account)),
)]
pub async fn get_account(caller: Caller) -> Json<Account> {
    Json(caller.account)
}

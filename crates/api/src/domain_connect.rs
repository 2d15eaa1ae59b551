//! Domain Connect (draft-ietf-dconn-domainconnect) as it goes over the wire: the DNS
//! provider's settings document, what discovery finds, and the names of the synchronous flow's
//! parameters. The local service answers as a DNS provider; the client discovers providers
//! and builds apply URLs with the same types.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The label of the TXT record, at a zone's apex, that names the DNS provider's Domain Connect
/// API host (`_domainconnect.example.com TXT "api.provider.example"`).
pub const DISCOVERY_LABEL: &str = "_domainconnect";

/// `GET {api host}/v2/{domain}/settings`: who the DNS provider is and where its flows live.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderSettings {
    pub provider_id: String,
    pub provider_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_display_name: Option<String>,
    /// Base URL of the synchronous flow's pages (the apply URL starts with it).
    #[serde(rename = "urlSyncUX")]
    pub url_sync_ux: String,
    /// Base URL of the template support query.
    #[serde(rename = "urlAPI")]
    pub url_api: String,
    /// Suggested size of a window showing the consent page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub name_servers: Vec<String>,
}

/// The answer to the template support query when the provider supports the template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateSupport {
    pub provider_id: String,
    pub service_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
}

/// Where the synchronous flow sends the browser back with `error=` when it did not apply.
pub mod sync_error {
    /// The user pressed Cancel.
    pub const ACCESS_DENIED: &str = "access_denied";
}

//! "Set up automatically, then verify": Domain Connect for a domain whose DNS provider supports
//! it, as both front ends run it — the window's Set up automatically
//! (`src-tauri/commands/domain_connect.rs`) and `domain-desk domains add --auto`
//! (`src-tauri/cli/domains.rs`).
//!
//! The provider's consent page opens in the user's browser only once the user approved its
//! host (the window asks before it calls in; the command line asks on the terminal or takes
//! `--yes`); the answer comes back to a loopback port; then the domain is verified. Each front
//! end says in its own words what came of it ([`SetUp`]).

use std::net::SocketAddr;
use std::time::Duration;

use domain_desk_api::Domain;
use domain_desk_client::Client;
use domain_desk_client::domain_connect::{Consent, DomainConnect, SyncOutcome, Targets};

use crate::Result;

/// How long the browser has to come back from the provider's consent page.
pub const CONSENT_WAIT: Duration = Duration::from_secs(600);

/// Discovery as the account's platform sees DNS: with `dns_server` (the local service's, for
/// the offline demo's accounts) its own provider on loopback; otherwise the system's resolvers
/// and providers on the internet only.
pub fn discovery(dns_server: Option<SocketAddr>) -> Result<DomainConnect> {
    Ok(match dns_server {
        Some(server) => DomainConnect::with_name_server(server, Targets::Demo)?,
        None => DomainConnect::system()?,
    })
}

/// What came of "set up automatically".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetUp {
    /// The manual steps stay: why automatic set-up is not offered.
    NotOffered { reason: String },
    /// The user did not approve the provider's page: nothing was opened.
    Declined,
    /// The user pressed Cancel at the provider (`access_denied`), or the provider refused.
    Refused {
        provider: String,
        error: String,
        description: String,
    },
    /// The provider wrote the record; `domain` is what Verify answered (verified, or not yet
    /// while the platform's view of DNS lags).
    Applied {
        provider: String,
        domain: Box<Domain>,
    },
}

/// Sets `hostname` of `project_id` up through its DNS provider and verifies it: discovery and
/// the template check; `approve` is shown the provider and its consent page's host and
/// answers with the host the user approved (`None`: not approved, nothing opens); the page
/// opens through `open_browser` only if it is still at that host; after the provider wrote
/// the record, Verify through `client`.
pub async fn set_up_then_verify(
    client: &Client,
    discovery: &DomainConnect,
    project_id: &str,
    hostname: &str,
    approve: impl AsyncFnOnce(&Consent) -> Option<String>,
    open_browser: impl FnOnce(&str) -> std::result::Result<(), String>,
    wait: Duration,
) -> Result<SetUp> {
    let offered = match discovery.offer(hostname).await? {
        Ok(offered) => offered,
        Err(reason) => return Ok(SetUp::NotOffered { reason }),
    };
    let Some(approved_host) = approve(&offered.consent).await else {
        return Ok(SetUp::Declined);
    };
    let outcome = discovery
        .run(&offered.discovery, &approved_host, open_browser, wait)
        .await?;
    let provider = offered.consent.provider;
    Ok(match outcome {
        SyncOutcome::Refused { error, description } => SetUp::Refused {
            provider,
            error,
            description,
        },
        SyncOutcome::Applied => {
            let domain = client
                .interactive()
                .verify_domain(project_id, hostname)
                .await?;
            SetUp::Applied {
                provider,
                domain: Box::new(domain),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    //! The whole workflow against the local service in this process (its DNS server and its
    //! Domain Connect provider), with a browser that posts the consent page's form.

    use std::sync::{Arc, Mutex};

    use domain_desk_api::{AddDomain, Plan};
    use domain_desk_client::ClientConfig;
    use domain_desk_service::ServiceSettings;
    use domain_desk_test_support::domain_connect::SIGNED_TEMPLATE;

    use super::*;

    fn hidden(page: &str, name: &str) -> String {
        let marker = format!("name=\"{name}\" value=\"");
        let start = page.find(&marker).expect("the hidden field") + marker.len();
        let end = start + page[start..].find('"').unwrap();
        page[start..end]
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
    }

    /// Fetches the consent page, presses Apply and follows the provider's redirect back.
    fn browser(opened: Arc<Mutex<Vec<String>>>) -> impl FnOnce(&str) -> Result<(), String> {
        let http = domain_desk_test_support::http_client_builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        move |url: &str| {
            opened.lock().unwrap().push(url.to_owned());
            let url = url.to_owned();
            tokio::spawn(async move {
                let page = http.get(&url).send().await.unwrap().text().await.unwrap();
                let form_url = url.split('?').next().unwrap().to_owned();
                let answer = http
                    .post(form_url)
                    .form(&[
                        ("query", hidden(&page, "query")),
                        ("token", hidden(&page, "token")),
                        ("action", "apply".to_owned()),
                    ])
                    .send()
                    .await
                    .unwrap();
                let back = answer.headers()["location"].to_str().unwrap().to_owned();
                http.get(back).send().await.unwrap();
            });
            Ok(())
        }
    }

    #[tokio::test]
    async fn the_page_opens_once_its_host_is_approved_and_then_the_domain_is_verified() {
        let running = domain_desk_test_support::start_with(ServiceSettings {
            clock_speed: 0.0,
            domain_connect_templates: vec![SIGNED_TEMPLATE.to_owned()],
            ..domain_desk_test_support::loopback_settings()
        })
        .await;
        let info = running.info().clone();
        let dns = info.dns.as_deref().unwrap().parse().unwrap();
        let discovery = discovery(Some(dns)).unwrap();
        let client = Client::new(
            ClientConfig::new(running.base_url(), info.demo_keys["pro"].clone()).plan(Plan::Pro),
        )
        .unwrap();
        let project = client.create_project("auto").await.unwrap();
        client.deploy(&project.id, None).await.unwrap();
        for hostname in ["flow.example.com", "declined.example.com"] {
            client
                .add_domain(
                    &project.id,
                    &AddDomain {
                        hostname: hostname.into(),
                        redirect_to: None,
                    },
                )
                .await
                .unwrap();
        }
        let own_host = running.base_url().trim_start_matches("http://").to_owned();
        let opened = Arc::new(Mutex::new(Vec::new()));

        // Not approved: nothing opens, nothing is verified.
        let declined = set_up_then_verify(
            &client,
            &discovery,
            &project.id,
            "declined.example.com",
            async |consent: &Consent| {
                assert_eq!(consent.host, own_host);
                None
            },
            browser(opened.clone()),
            Duration::from_secs(30),
        )
        .await
        .unwrap();
        assert_eq!(declined, SetUp::Declined);
        assert!(opened.lock().unwrap().is_empty());

        // Approved: the page opens, the provider writes the record, Verify answers.
        let applied = set_up_then_verify(
            &client,
            &discovery,
            &project.id,
            "flow.example.com",
            async |consent: &Consent| Some(consent.host.clone()),
            browser(opened.clone()),
            Duration::from_secs(30),
        )
        .await
        .unwrap();
        let SetUp::Applied { domain, .. } = applied else {
            panic!("{applied:?}");
        };
        assert_eq!(domain.hostname, "flow.example.com");
        assert_eq!(opened.lock().unwrap().len(), 1);

        // A name whose DNS provider has no Domain Connect keeps the manual steps.
        let unserved = set_up_then_verify(
            &client,
            &discovery,
            &project.id,
            "shop.unserved-zone.com",
            async |_: &Consent| panic!("nothing to approve"),
            |_: &str| panic!("nothing to open"),
            Duration::from_secs(1),
        )
        .await
        .unwrap();
        assert!(matches!(unserved, SetUp::NotOffered { .. }), "{unserved:?}");
    }
}

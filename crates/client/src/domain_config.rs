//! Make primary and Redirect to… as edits of a project's domain configuration.
//!
//! The API sets the primary domain and the redirects in one `PUT …/domain_config`; the pure
//! functions here compute the new configuration from the current one (unit-tested), and
//! [`Client::make_primary`] and [`Client::redirect`] fetch, edit and put, so the window's
//! commands and the command line make the same edit with one call.

use domain_desk_api::{DomainConfig, RedirectRule};

use crate::client::Client;
use crate::error::{Error, Result};

impl Client {
    /// Makes `hostname` the project's primary domain (a redirect stops redirecting); answers
    /// with the configuration the platform kept.
    pub async fn make_primary(&self, project_id: &str, hostname: &str) -> Result<DomainConfig> {
        let config = make_primary(self.domain_config(project_id).await?, hostname);
        self.set_domain_config(project_id, &config).await
    }

    /// Makes `hostname` 301-redirect to `to`, or stop redirecting with `None`; refuses a
    /// redirect to itself, from the primary domain, or to a redirect (no chains).
    pub async fn redirect(
        &self,
        project_id: &str,
        hostname: &str,
        to: Option<&str>,
    ) -> Result<DomainConfig> {
        let config = set_redirect(self.domain_config(project_id).await?, hostname, to)?;
        self.set_domain_config(project_id, &config).await
    }
}

/// `hostname` becomes the primary domain; if it was a redirect, it stops redirecting.
pub fn make_primary(mut config: DomainConfig, hostname: &str) -> DomainConfig {
    config.redirects.retain(|r| r.from != hostname);
    config.primary = Some(hostname.to_owned());
    config
}

/// `hostname` redirects to `to` with a 301, or stops redirecting when `to` is `None`.
pub fn set_redirect(
    mut config: DomainConfig,
    hostname: &str,
    to: Option<&str>,
) -> Result<DomainConfig> {
    config.redirects.retain(|r| r.from != hostname);
    let Some(to) = to else { return Ok(config) };
    if to == hostname {
        return Err(Error::InvalidInput(
            "A domain cannot redirect to itself.".into(),
        ));
    }
    if config.primary.as_deref() == Some(hostname) {
        return Err(Error::InvalidInput(
            "This is the primary domain. Make another domain primary first, then redirect this one."
                .into(),
        ));
    }
    if config.redirects.iter().any(|r| r.from == to) {
        return Err(Error::InvalidInput(format!(
            "{to} is itself a redirect; choose a domain that serves the project, so there is no chain."
        )));
    }
    config.redirects.push(RedirectRule {
        from: hostname.to_owned(),
        to: to.to_owned(),
        status: 301,
    });
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> DomainConfig {
        DomainConfig {
            primary: Some("www.example.com".into()),
            redirects: vec![RedirectRule {
                from: "old.example.com".into(),
                to: "www.example.com".into(),
                status: 301,
            }],
        }
    }

    #[test]
    fn make_primary_takes_a_redirect_out_of_the_redirects() {
        let c = make_primary(config(), "old.example.com");
        assert_eq!(c.primary.as_deref(), Some("old.example.com"));
        assert!(c.redirects.is_empty());
    }

    #[test]
    fn redirect_replaces_an_earlier_rule_and_can_be_cleared() {
        let c = set_redirect(config(), "old.example.com", Some("shop.example.com")).unwrap();
        assert_eq!(c.redirects.len(), 1);
        assert_eq!(c.redirects[0].to, "shop.example.com");
        assert_eq!(c.redirects[0].status, 301);
        let cleared = set_redirect(c, "old.example.com", None).unwrap();
        assert!(cleared.redirects.is_empty());
    }

    #[test]
    fn no_self_redirect_no_chain_and_not_the_primary() {
        assert!(set_redirect(config(), "a.example.com", Some("a.example.com")).is_err());
        assert!(set_redirect(config(), "a.example.com", Some("old.example.com")).is_err());
        assert!(set_redirect(config(), "www.example.com", Some("a.example.com")).is_err());
    }
}

//! An apex and its `www` name added together, one redirecting to the other: what the window's
//! "Also add www.example.com, redirecting to example.com" and `domain-desk domains add
//! example.com --with-www` do, in one place ([`Client::add_www_pair`]).
//!
//! The name the other redirects to (the *target*) is added first, because a redirect must
//! point at a domain of the project; then the other with `redirect_to`. A target already in
//! the project is taken as it is (a rerun after an interruption adds only what is missing).
//! The pair is an apex and `www.` under it: any other name has no `www` partner, and a
//! wildcard takes no redirect.

use domain_desk_api::{AddDomain, Domain, ErrorCode, Hostname};

use crate::client::Client;
use crate::error::{Error, Result};

/// Which of the pair the other redirects to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairTarget {
    /// `www.example.com` redirects to `example.com` (`--with-www`).
    Apex,
    /// `example.com` redirects to `www.example.com` (`--www-primary`).
    Www,
}

/// The two names of a pair, both lowercase A-labels.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WwwPair {
    /// Added first; the other redirects to it.
    pub target: String,
    /// Added second, as a 301 redirect to `target`.
    pub redirect: String,
}

/// The `www` partner of `hostname`: `www.example.com` for the apex `example.com`, the apex for
/// `www.example.com`; `None` for any other name (a deeper subdomain, a wildcard). The window
/// offers the pair only when there is one.
pub fn www_partner(hostname: &Hostname) -> Option<Hostname> {
    if hostname.is_wildcard() {
        return None;
    }
    let name = hostname.as_str();
    if hostname.is_apex() {
        return Hostname::parse(&format!("www.{name}")).ok();
    }
    let apex = name.strip_prefix("www.")?;
    Hostname::parse(apex).ok().filter(Hostname::is_apex)
}

/// The pair of `hostname` (the apex or its `www` name, as typed) with `target` as the name the
/// other redirects to.
pub fn www_pair(hostname: &str, target: PairTarget) -> Result<WwwPair> {
    let typed =
        Hostname::parse_domain(hostname).map_err(|err| Error::InvalidInput(err.to_string()))?;
    let Some(other) = www_partner(&typed) else {
        return Err(Error::InvalidInput(format!(
            "{} has no www pair: the pair is a domain such as example.com with www.example.com. Add it on its own.",
            typed.as_str()
        )));
    };
    let (apex, www) = if typed.is_apex() {
        (typed, other)
    } else {
        (other, typed)
    };
    let (target, redirect) = match target {
        PairTarget::Apex => (apex, www),
        PairTarget::Www => (www, apex),
    };
    Ok(WwwPair {
        target: target.as_str().to_owned(),
        redirect: redirect.as_str().to_owned(),
    })
}

/// What adding a pair did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AddedPair {
    /// The name the other redirects to.
    pub target: Domain,
    /// `true` when the target was in the project already and was left as it was.
    pub target_was_there: bool,
    /// The redirecting name.
    pub redirect: Domain,
    /// `true` when the redirecting name was in the project already (it now redirects to
    /// the target).
    pub redirect_was_there: bool,
}

impl Client {
    /// Adds the pair of `hostname` (the apex or its `www` name) to the project: the target
    /// first (kept when the project has it already), then the other name as a 301 redirect
    /// to it. An error after the target was added leaves the target in the project; adding
    /// the pair again adds only the redirect.
    pub async fn add_www_pair(
        &self,
        project_id: &str,
        hostname: &str,
        target: PairTarget,
    ) -> Result<AddedPair> {
        let names = www_pair(hostname, target)?;
        let (target, target_was_there) = self.add_or_keep(project_id, &names.target, None).await?;
        let (mut redirect, redirect_was_there) = self
            .add_or_keep(project_id, &names.redirect, Some(&names.target))
            .await?;
        if redirect
            .redirect
            .as_ref()
            .is_none_or(|to| to.to != names.target)
        {
            // It was there already, not redirecting to the target: make it.
            self.redirect(project_id, &names.redirect, Some(&names.target))
                .await?;
            redirect = self.domain(project_id, &names.redirect).await?;
        }
        Ok(AddedPair {
            target,
            target_was_there,
            redirect,
            redirect_was_there,
        })
    }

    /// Adds `hostname`, or takes it as it is when this project has it already (`true`).
    async fn add_or_keep(
        &self,
        project_id: &str,
        hostname: &str,
        redirect_to: Option<&str>,
    ) -> Result<(Domain, bool)> {
        let body = AddDomain {
            hostname: hostname.to_owned(),
            redirect_to: redirect_to.map(str::to_owned),
        };
        match self.add_domain(project_id, &body).await {
            Ok(domain) => Ok((domain, false)),
            // Attached, but maybe to another project of the account: only this project's
            // counts as there.
            Err(err) if err.code() == Some(ErrorCode::DomainAlreadyAttached) => {
                match self.domain(project_id, hostname).await {
                    Ok(domain) => Ok((domain, true)),
                    Err(_) => Err(err),
                }
            }
            Err(err) => Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str) -> Hostname {
        Hostname::parse_domain(text).unwrap()
    }

    #[test]
    fn an_apex_and_its_www_name_are_partners_and_nothing_else_is() {
        assert_eq!(
            www_partner(&name("example.com")).unwrap().as_str(),
            "www.example.com"
        );
        assert_eq!(
            www_partner(&name("WWW.Example.co.uk")).unwrap().as_str(),
            "example.co.uk"
        );
        assert_eq!(www_partner(&name("shop.example.com")), None);
        assert_eq!(www_partner(&name("www.shop.example.com")), None);
        assert_eq!(www_partner(&name("*.shop.example.com")), None);
    }

    #[test]
    fn the_pair_is_the_same_whichever_name_is_typed() {
        for typed in ["example.com", "www.example.com"] {
            assert_eq!(
                www_pair(typed, PairTarget::Apex).unwrap(),
                WwwPair {
                    target: "example.com".into(),
                    redirect: "www.example.com".into()
                },
                "{typed}"
            );
            assert_eq!(
                www_pair(typed, PairTarget::Www).unwrap(),
                WwwPair {
                    target: "www.example.com".into(),
                    redirect: "example.com".into()
                },
                "{typed}"
            );
        }
        let lone = www_pair("shop.example.com", PairTarget::Apex).unwrap_err();
        assert!(lone.to_string().contains("has no www pair"), "{lone}");
        assert!(matches!(
            www_pair("*.shop.example.com", PairTarget::Apex),
            Err(Error::InvalidInput(_))
        ));
        assert!(matches!(
            www_pair("not a name", PairTarget::Apex),
            Err(Error::InvalidInput(_))
        ));
    }
}

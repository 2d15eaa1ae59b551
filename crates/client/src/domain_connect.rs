//! Domain Connect discovery, for the app and the command line: does the DNS provider of a
//! customer's domain support Domain Connect (a `_domainconnect` TXT record at the zone's apex
//! naming its API, and that API's settings document), does it support the platform's template,
//! and the synchronous flow's apply URL to open in the user's browser.
//!
//! Like the API client it sends nothing over plain `http://` except to this computer (the
//! local service's provider lives on loopback).
//!
//! The `_domainconnect` record is not signed: whoever answers DNS for the name (or sits on
//! the path of its answer) chooses where discovery sends its requests and where the browser
//! goes. So outside the offline demo ([`Targets::Public`]) every provider URL must lead to
//! the internet: a name under `localhost`, or a host any of whose addresses is loopback,
//! private, link-local or shared (carrier-grade NAT), is refused before anything is sent to
//! it; and the consent page opens only after the user has been shown its host
//! ([`Consent`]) and said yes.
//!
//! It is longer than the house's 500 lines (about 550 of code, 200 of tests): it is one flow,
//! "Set up automatically", from the `_domainconnect` record to the browser's answer on the
//! loopback port, and each provider URL it meets passes the one guard (`check_target`,
//! `Targets`) before anything is sent; split by step, that guard would be handed between
//! files. The settings document is apart already (`domain_desk_api::domain_connect`), and the
//! flow end to end against the local service is tested in `tests/suite/domain_connect.rs`.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use domain_desk_api::Hostname;
use domain_desk_api::domain_connect::{DISCOVERY_LABEL, ProviderSettings};
use domain_desk_api::txt::txt_text;
use hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolveHosts, ResolverConfig, ResolverOpts,
};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::{DnsError, NetError};
use hickory_resolver::proto::rr::{RData, RecordType};
use hickory_resolver::{Resolver, TokioResolver};
use reqwest::{StatusCode, Url};

use crate::transport::is_loopback;
use crate::{Error, Result};

/// How long one DNS question or HTTP request of discovery may take.
const TIMEOUT: Duration = Duration::from_secs(5);

/// What discovery found for a hostname.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovery {
    /// The zone (registrable domain): the apply URL's `domain`.
    pub domain: String,
    /// The name under the zone (`shop` for `shop.example.com`), empty for an apex: the apply
    /// URL's `host`.
    pub host: String,
    /// The DNS provider's settings document.
    pub settings: ProviderSettings,
}

/// Where a provider's URLs may lead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Targets {
    /// The internet only: an account on a real platform.
    Public,
    /// The offline demo's account: its own provider, on this computer's loopback, too.
    Demo,
}

/// What the user approves before the browser opens: the DNS provider and the host its
/// consent page is on (`host` or `host:port`, as the browser's address bar shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consent {
    pub provider: String,
    pub host: String,
}

/// A provider that supports the platform's template: what discovery found, and what to ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offered {
    pub discovery: Discovery,
    pub consent: Consent,
}

/// Discovers DNS providers that support Domain Connect.
#[derive(Debug, Clone)]
pub struct DomainConnect {
    resolver: TokioResolver,
    targets: Targets,
}

impl DomainConnect {
    /// Asks the system's resolvers.
    pub fn system() -> Result<Self> {
        let resolver = Resolver::builder_tokio()
            .map_err(|error| Error::Setup(format!("no system DNS configuration: {error}")))?
            .build()
            .map_err(|error| Error::Setup(format!("no DNS resolver: {error}")))?;
        Self::with_resolver(resolver, Targets::Public)
    }

    /// Asks one name server (the local service's DNS server in the offline demo, with
    /// [`Targets::Demo`]).
    pub fn with_name_server(address: SocketAddr, targets: Targets) -> Result<Self> {
        let [mut udp, mut tcp] = [ConnectionConfig::udp(), ConnectionConfig::tcp()];
        (udp.port, tcp.port) = (address.port(), address.port());
        let server = NameServerConfig::new(address.ip(), true, vec![udp, tcp]);
        let config = ResolverConfig::from_name_servers(vec![server]);
        let mut options = ResolverOpts::default();
        options.timeout = TIMEOUT;
        options.attempts = 1;
        options.use_hosts_file = ResolveHosts::Never;
        options.cache_size = 0;
        let resolver = Resolver::builder_with_config(config, TokioRuntimeProvider::default())
            .with_options(options)
            .build()
            .map_err(|error| Error::Setup(format!("no DNS resolver: {error}")))?;
        Self::with_resolver(resolver, targets)
    }

    fn with_resolver(resolver: TokioResolver, targets: Targets) -> Result<Self> {
        Ok(Self { resolver, targets })
    }

    /// Refuses `url` when it leads where [`Targets`] does not allow: the error names the host
    /// and the address. Otherwise the addresses its host was found at (none for an address
    /// written in the URL, or a localhost name in the demo).
    async fn check_target(&self, url: &Url) -> Result<Vec<IpAddr>> {
        let shown = shown_host(url);
        let refuse = |address: &str, why: &str| {
            Error::DomainConnect(format!(
                "the DNS provider's address {shown} leads to {address}, {why}: its _domainconnect record is not signed, so Domain Desk sends nothing there and opens no page there; create the record by hand"
            ))
        };
        let Some(host) = url.host_str() else {
            return Err(refuse(&shown, "no host"));
        };
        let literal = host.trim_start_matches('[').trim_end_matches(']');
        let addresses: Vec<IpAddr> = match literal.parse::<IpAddr>() {
            Ok(address) => vec![address],
            Err(_) if is_localhost_name(host) => {
                return match self.targets {
                    Targets::Demo => Ok(Vec::new()),
                    Targets::Public => Err(refuse(host, "this computer")),
                };
            }
            Err(_) => {
                let lookup = self.resolver.lookup_ip(host).await.map_err(|error| {
                    Error::DomainConnect(format!("looking up the provider's {host}: {error}"))
                })?;
                lookup.iter().collect()
            }
        };
        if addresses.is_empty() {
            return Err(Error::DomainConnect(format!(
                "the provider's {shown} has no address"
            )));
        }
        for &address in &addresses {
            if let Some(why) = refused_address(address, self.targets) {
                return Err(refuse(&address.to_string(), why));
            }
        }
        Ok(if url.domain().is_some() {
            addresses
        } else {
            Vec::new()
        })
    }

    /// An HTTP client for `url` once [`Self::check_target`] allows it, that connects to its
    /// host only at the addresses the check found: the HTTP client does not look the name up
    /// again, so an answer that changed in between (DNS rebinding) reaches nothing.
    async fn checked_client(&self, url: &Url) -> Result<reqwest::Client> {
        let addresses = self.check_target(url).await?;
        let mut http = crate::http::client_builder()
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none());
        if let (Some(host), Some(port)) = (url.domain(), url.port_or_known_default())
            && !addresses.is_empty()
        {
            let pinned: Vec<SocketAddr> = addresses
                .iter()
                .map(|&address| SocketAddr::new(address, port))
                .collect();
            http = http.resolve_to_addrs(host, &pinned);
        }
        http.build()
            .map_err(|error| Error::Setup(error.without_url().to_string()))
    }

    /// Checks where `discovery`'s consent page is and names its host, for the question the
    /// user answers before the browser opens.
    pub async fn consent(&self, discovery: &Discovery) -> Result<Consent> {
        let url = checked_url(&discovery.settings.url_sync_ux)?;
        self.check_target(&url).await?;
        Ok(Consent {
            provider: discovery.settings.provider_name.clone(),
            host: shown_host(&url),
        })
    }

    /// The DNS provider of `hostname`'s zone, if it supports Domain Connect: `None` when the
    /// zone has no `_domainconnect` record or the provider does not know the zone.
    pub async fn discover(&self, hostname: &str) -> Result<Option<Discovery>> {
        let name =
            Hostname::parse(hostname).map_err(|error| Error::InvalidInput(error.to_string()))?;
        let domain = name.registrable_domain().to_owned();
        let host = match name.relative_name() {
            "@" => String::new(),
            relative => relative.to_owned(),
        };
        let Some(api_host) = self.api_host(&domain).await? else {
            return Ok(None);
        };
        let base = base_url(&api_host)?;
        let http = self.checked_client(&base).await?;
        let url = base
            .join(&format!("v2/{domain}/settings"))
            .map_err(|error| Error::DomainConnect(format!("a settings URL: {error}")))?;
        let response = http.get(url).send().await.map_err(|error| {
            Error::DomainConnect(format!("the settings of {domain}: {}", error.without_url()))
        })?;
        match response.status() {
            StatusCode::OK => {}
            StatusCode::NOT_FOUND => return Ok(None),
            other => {
                return Err(Error::DomainConnect(format!(
                    "the settings of {domain} answered {other}"
                )));
            }
        }
        let settings: ProviderSettings = response.json().await.map_err(|error| {
            Error::DomainConnect(format!("the settings of {domain}: {}", error.without_url()))
        })?;
        Ok(Some(Discovery {
            domain,
            host,
            settings,
        }))
    }

    /// The `_domainconnect` TXT value of a zone.
    async fn api_host(&self, domain: &str) -> Result<Option<String>> {
        let name = format!("{DISCOVERY_LABEL}.{domain}.");
        match self.resolver.lookup(name.as_str(), RecordType::TXT).await {
            Ok(lookup) => Ok(lookup
                .answers()
                .iter()
                .find_map(|record| match &record.data {
                    RData::TXT(txt) => Some(txt_text(txt.txt_data.iter()).trim().to_owned()),
                    _ => None,
                })),
            Err(error) if is_no_answer(&error) => Ok(None),
            Err(error) => Err(Error::DomainConnect(format!("looking up {name}: {error}"))),
        }
    }

    /// Whether the provider supports the template `provider_id`/`service_id`.
    pub async fn supports_template(
        &self,
        settings: &ProviderSettings,
        provider_id: &str,
        service_id: &str,
    ) -> Result<bool> {
        let api = checked_url(&settings.url_api)?;
        let http = self.checked_client(&api).await?;
        let url = api
            .join(&format!(
                "v2/domainTemplates/providers/{}/services/{}",
                path_segment(provider_id)?,
                path_segment(service_id)?
            ))
            .map_err(|error| Error::DomainConnect(format!("a template URL: {error}")))?;
        let response = http.get(url).send().await.map_err(|error| {
            Error::DomainConnect(format!("the template query: {}", error.without_url()))
        })?;
        match response.status() {
            StatusCode::OK => Ok(true),
            StatusCode::NOT_FOUND => Ok(false),
            other => Err(Error::DomainConnect(format!(
                "the template query answered {other}"
            ))),
        }
    }
}

/// The parameters of a synchronous apply URL besides the template's.
#[derive(Debug, Clone, Default)]
pub struct SyncApply<'a> {
    /// Template variables, `name=value`.
    pub variables: Vec<(&'a str, &'a str)>,
    /// Where the provider sends the browser afterwards.
    pub redirect_uri: Option<&'a str>,
    /// Passed back to `redirect_uri` unchanged.
    pub state: Option<&'a str>,
}

/// The synchronous flow's apply URL for `discovery`, to open in the user's browser.
pub fn sync_apply_url(
    discovery: &Discovery,
    provider_id: &str,
    service_id: &str,
    apply: &SyncApply<'_>,
) -> Result<String> {
    let mut url = checked_url(&discovery.settings.url_sync_ux)?
        .join(&format!(
            "v2/domainTemplates/providers/{}/services/{}/apply",
            path_segment(provider_id)?,
            path_segment(service_id)?
        ))
        .map_err(|error| Error::DomainConnect(format!("an apply URL: {error}")))?;
    {
        let mut query = url.query_pairs_mut();
        query.append_pair("domain", &discovery.domain);
        if !discovery.host.is_empty() {
            query.append_pair("host", &discovery.host);
        }
        for (name, value) in &apply.variables {
            query.append_pair(name, value);
        }
        if let Some(uri) = apply.redirect_uri {
            query.append_pair("redirect_uri", uri);
        }
        if let Some(state) = apply.state {
            query.append_pair("state", state);
        }
    }
    Ok(url.to_string())
}

/// The zone has no `_domainconnect` answer: no records, or a name server that answered with
/// an error code (REFUSED, SERVFAIL, …), as hickory 0.25's "no records found" counted it
/// (0.26 reports the error code apart).
fn is_no_answer(error: &NetError) -> bool {
    matches!(
        error,
        NetError::Dns(DnsError::NoRecordsFound(_) | DnsError::ResponseCode(_))
    )
}

/// `https://<api host>/` (or `http://` for this computer) from a `_domainconnect` value,
/// which is a host with an optional port and path.
fn base_url(api_host: &str) -> Result<Url> {
    if api_host.is_empty() || api_host.contains("://") || api_host.contains(char::is_whitespace) {
        return Err(Error::DomainConnect(format!(
            "the _domainconnect record {api_host:?} is not a host name"
        )));
    }
    let https =
        Url::parse(&format!("https://{}/", api_host.trim_end_matches('/'))).map_err(|_| {
            Error::DomainConnect(format!(
                "the _domainconnect record {api_host:?} is not a host name"
            ))
        })?;
    if is_loopback(&https) {
        let mut http = https;
        http.set_scheme("http")
            .map_err(|()| Error::DomainConnect("a loopback URL".to_owned()))?;
        return Ok(http);
    }
    Ok(https)
}

/// A provider URL from its settings, with a final `/`, refused if plain http to another
/// computer.
fn checked_url(text: &str) -> Result<Url> {
    let url = Url::parse(&format!("{}/", text.trim_end_matches('/')))
        .map_err(|_| Error::DomainConnect(format!("the provider URL {text:?} is not a URL")))?;
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&url) => Ok(url),
        _ => Err(Error::DomainConnect(format!(
            "the provider URL {text:?} is neither https nor on this computer"
        ))),
    }
}

/// Why an address a provider's URL leads to is refused under `targets`, or `None`.
fn refused_address(ip: IpAddr, targets: Targets) -> Option<&'static str> {
    // An IPv4 address written as IPv6 (`::ffff:10.0.0.1`) reaches the IPv4 one.
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    let loopback = ip.is_loopback() || ip.is_unspecified();
    if loopback {
        return (targets == Targets::Public).then_some("this computer");
    }
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            if v4.is_private() {
                Some("a private network")
            } else if v4.is_link_local() {
                Some("a link-local address")
            } else if a == 100 && (64..128).contains(&b) || a == 0 {
                Some("a shared (carrier-grade NAT) address")
            } else {
                None
            }
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            if first & 0xfe00 == 0xfc00 {
                Some("a private network (unique local)")
            } else if first & 0xffc0 == 0xfe80 {
                Some("a link-local address")
            } else {
                None
            }
        }
    }
}

/// Whether `name` is `localhost` or a name under it (RFC 6761 §6.3: always this computer).
fn is_localhost_name(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// A URL's host as the address bar shows it: with its port when it has one.
fn shown_host(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

fn path_segment(value: &str) -> Result<String> {
    if value.is_empty()
        || !value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
    {
        return Err(Error::InvalidInput(format!(
            "{value:?} is not a template identifier"
        )));
    }
    Ok(value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discovery(url: &str, host: &str) -> Discovery {
        Discovery {
            domain: "example.com".into(),
            host: host.into(),
            settings: ProviderSettings {
                provider_id: "p".into(),
                provider_name: "P".into(),
                provider_display_name: None,
                url_sync_ux: url.into(),
                url_api: url.into(),
                width: None,
                height: None,
                name_servers: vec![],
            },
        }
    }

    #[test]
    fn the_apply_url_carries_domain_host_and_parameters_encoded() {
        let url = sync_apply_url(
            &discovery("https://dc.provider.example/base", "shop"),
            "local-platform.test",
            "custom-domain",
            &SyncApply {
                variables: vec![("target", "a b&c")],
                redirect_uri: Some("http://localhost:9/done?x=1"),
                state: Some("s1"),
            },
        )
        .unwrap();
        assert_eq!(
            url,
            "https://dc.provider.example/base/v2/domainTemplates/providers/local-platform.test/services/custom-domain/apply?domain=example.com&host=shop&target=a+b%26c&redirect_uri=http%3A%2F%2Flocalhost%3A9%2Fdone%3Fx%3D1&state=s1"
        );
    }

    #[test]
    fn plain_http_only_to_this_computer() {
        assert!(checked_url("http://127.0.0.1:8787").is_ok());
        assert!(checked_url("http://provider.example").is_err());
        assert_eq!(
            base_url("127.0.0.1:8787").unwrap().as_str(),
            "http://127.0.0.1:8787/"
        );
        assert_eq!(
            base_url("api.provider.example/dc").unwrap().as_str(),
            "https://api.provider.example/dc/"
        );
        assert!(base_url("https://x").is_err());
        assert!(path_segment("../x").is_err());
    }

    /// The browser for [`run_sync_flow`]: keeps the apply URL and comes back to the port its
    /// `redirect_uri` names with the `state`, as the provider would send it.
    fn come_back(
        seen: std::sync::Arc<std::sync::Mutex<String>>,
    ) -> impl FnOnce(&str) -> std::result::Result<(), String> {
        move |url: &str| {
            *seen.lock().unwrap() = url.to_owned();
            let url = Url::parse(url).unwrap();
            let param = |name: &str| {
                url.query_pairs()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.into_owned())
                    .unwrap()
            };
            let redirect = Url::parse(&param("redirect_uri")).unwrap();
            let (port, state) = (redirect.port().unwrap(), param("state"));
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .unwrap();
                stream
                    .write_all(
                        format!("GET /domain-connect?state={state} HTTP/1.1\r\nhost: x\r\n\r\n")
                            .as_bytes(),
                    )
                    .await
                    .unwrap();
                let mut page = String::new();
                let _ = stream.read_to_string(&mut page).await;
            });
            Ok(())
        }
    }

    #[test]
    fn loopback_private_link_local_and_shared_addresses_are_refused_outside_the_demo() {
        let refused = [
            "127.0.0.1",
            "127.255.0.9",
            "::1",
            "10.0.0.1",
            "10.255.255.255",
            "172.16.0.1",
            "172.31.255.254",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.255",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "0.0.0.0",
            "::",
            "::ffff:10.0.0.1",
            "::ffff:127.0.0.1",
        ];
        for ip in refused {
            let ip: IpAddr = ip.parse().unwrap();
            assert!(
                refused_address(ip, Targets::Public).is_some(),
                "{ip} should be refused"
            );
        }
        let public = [
            "8.8.8.8",
            "172.32.0.1",
            "172.15.255.255",
            "100.128.0.1",
            "192.0.2.7",
            "11.0.0.1",
            "2606:4700::1111",
            "fec0::1",
        ];
        for ip in public {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(refused_address(ip, Targets::Public), None, "{ip}");
            assert_eq!(refused_address(ip, Targets::Demo), None, "{ip}");
        }
        // The demo's own provider is on loopback; other private addresses stay refused.
        for ip in ["127.0.0.1", "::1"] {
            assert_eq!(refused_address(ip.parse().unwrap(), Targets::Demo), None);
        }
        assert!(refused_address("10.0.0.1".parse().unwrap(), Targets::Demo).is_some());
    }

    #[tokio::test]
    async fn the_redirect_uri_names_127_0_0_1_not_localhost() {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let outcome = run_sync_flow(
            &discovery("https://dc.provider.example", "shop"),
            SUBDOMAIN_SERVICE_ID,
            come_back(seen.clone()),
            Duration::from_secs(30),
        )
        .await
        .unwrap();
        assert_eq!(outcome, SyncOutcome::Applied);
        let url = Url::parse(&seen.lock().unwrap()).unwrap();
        let redirect = url
            .query_pairs()
            .find(|(k, _)| k == "redirect_uri")
            .map(|(_, v)| v.into_owned())
            .unwrap();
        let redirect = Url::parse(&redirect).unwrap();
        // RFC 8252 §8.3: the loopback IP literal, which no hosts file or resolver can send
        // elsewhere, and the address the port listens on.
        assert_eq!(redirect.host_str(), Some("127.0.0.1"), "{redirect}");
        assert_eq!(redirect.scheme(), "http");
        assert_eq!(redirect.path(), "/domain-connect");
    }

    #[tokio::test(start_paused = true)]
    async fn an_accept_error_backs_off_instead_of_spinning() {
        // A listener whose accept fails at once, as it does out of file descriptors; after
        // 1,000 tries it waits forever, so a loop that spins ends and the count shows it.
        let tries = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let accept = {
            let tries = tries.clone();
            move || {
                let tries = tries.clone();
                async move {
                    let count = {
                        let mut tries = tries.lock().unwrap();
                        tries.push(tokio::time::Instant::now());
                        tries.len()
                    };
                    if count > 1000 {
                        std::future::pending::<()>().await;
                    }
                    Err::<tokio::io::DuplexStream, _>(std::io::Error::other("too many open files"))
                }
            }
        };
        let started = tokio::time::Instant::now();
        let waited = tokio::time::timeout(Duration::from_secs(10), answer(accept, "s")).await;
        assert!(waited.is_err(), "no answer came");
        let tries = tries.lock().unwrap();
        assert!(
            tries.len() <= 25,
            "{} accepts in 10 s of a failing listener",
            tries.len()
        );
        assert!(tries.len() >= 5, "it keeps trying: {} accepts", tries.len());
        // Never two tries at the same instant, and the pause grows to a second at most.
        for pair in tries.windows(2) {
            let gap = pair[1] - pair[0];
            assert!(
                gap >= Duration::from_millis(50) && gap <= Duration::from_secs(1),
                "{gap:?}"
            );
        }
        assert!(tries[0] - started < Duration::from_millis(1));
    }
}

/// The platform's templates (the files under the local service's `data/domainconnect`): the
/// provider id, and the service for a subdomain and for an apex.
pub const PLATFORM_PROVIDER_ID: &str = "local-platform.test";
pub const SUBDOMAIN_SERVICE_ID: &str = "custom-domain";
pub const APEX_SERVICE_ID: &str = "custom-domain-apex";

/// How the user's browser came back from the provider's consent page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncOutcome {
    /// The provider wrote the records.
    Applied,
    /// The user pressed Cancel, or the provider refused (`error` and its description).
    Refused { error: String, description: String },
}

/// Runs the synchronous flow for `discovery` with the browser: listens on a loopback port for
/// the provider's redirect, hands the apply URL (with that redirect and a random `state`) to
/// `open_browser`, and waits up to `wait` for the browser to come back. A request to the port
/// without the right `state` is answered and ignored.
pub async fn run_sync_flow(
    discovery: &Discovery,
    service_id: &str,
    open_browser: impl FnOnce(&str) -> std::result::Result<(), String>,
    wait: Duration,
) -> Result<SyncOutcome> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|error| {
            Error::DomainConnect(format!("a loopback port for the answer: {error}"))
        })?;
    let port = listener
        .local_addr()
        .map_err(|error| Error::DomainConnect(format!("a loopback port: {error}")))?
        .port();
    let state: String = {
        use rand::Rng;
        let mut rng = rand::thread_rng();
        (0..24)
            .map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.gen_range(0..36)]))
            .collect()
    };
    // The loopback IP literal, not `localhost` (RFC 8252 §8.3): no hosts file or resolver
    // can send the provider's answer anywhere but the port listening here.
    let redirect = format!("http://127.0.0.1:{port}/domain-connect");
    let url = sync_apply_url(
        discovery,
        PLATFORM_PROVIDER_ID,
        service_id,
        &SyncApply {
            variables: Vec::new(),
            redirect_uri: Some(&redirect),
            state: Some(&state),
        },
    )?;
    open_browser(&url).map_err(|reason| {
        tracing::warn!(%reason, "the browser could not be opened for the consent page");
        Error::BrowserNotOpened {
            url: url.clone(),
            reason,
        }
    })?;
    let answer = answer(
        || async { listener.accept().await.map(|(stream, _)| stream) },
        &state,
    );
    tokio::time::timeout(wait, answer).await.map_err(|_| {
        Error::DomainConnect(
            "no answer from the browser in time; the records may still have been written: verify the domain"
                .to_owned(),
        )
    })
}

/// The pause after the loopback listener's first failed `accept()`, doubled after each
/// failure in a row up to [`ACCEPT_PAUSE_MAX`].
const ACCEPT_PAUSE_FIRST: Duration = Duration::from_millis(50);
const ACCEPT_PAUSE_MAX: Duration = Duration::from_secs(1);

/// Answers requests to the loopback port until one carries `state`, and returns what it said.
/// `accept` is the listener's (a test gives its own).
async fn answer<S, F, A>(mut accept: F, state: &str) -> SyncOutcome
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    F: FnMut() -> A,
    A: std::future::Future<Output = std::io::Result<S>>,
{
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut pause = ACCEPT_PAUSE_FIRST;
    loop {
        let mut stream = match accept().await {
            Ok(stream) => {
                pause = ACCEPT_PAUSE_FIRST;
                stream
            }
            // Out of file descriptors, say: trying again at once would spin. Wait, longer
            // each time, until the flow's own time limit ends it.
            Err(error) => {
                if pause == ACCEPT_PAUSE_FIRST {
                    tracing::warn!(%error, "the loopback port for the consent page's answer could not accept");
                }
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(ACCEPT_PAUSE_MAX);
                continue;
            }
        };
        let mut buffer = vec![0u8; 8192];
        let read = match tokio::time::timeout(TIMEOUT, stream.read(&mut buffer)).await {
            Ok(Ok(read)) => read,
            _ => continue,
        };
        let request = String::from_utf8_lossy(&buffer[..read]);
        let target = request
            .lines()
            .next()
            .and_then(|line| line.split_whitespace().nth(1))
            .unwrap_or("");
        let query = Url::parse(&format!("http://127.0.0.1{target}"))
            .ok()
            .map(|u| {
                u.query_pairs()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let param = |name: &str| {
            query
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let ours = param("state").as_deref() == Some(state);
        let page = if ours {
            "Domain Desk has the answer. You can close this tab and go back to Domain Desk."
        } else {
            "This page is for Domain Desk's set-up; nothing was done."
        };
        let body =
            format!("<!doctype html><meta charset=utf-8><title>Domain Desk</title><p>{page}</p>");
        let _ = stream
            .write_all(
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            )
            .await;
        if !ours {
            continue;
        }
        return match param("error") {
            None => SyncOutcome::Applied,
            Some(error) => SyncOutcome::Refused {
                error,
                description: param("error_description").unwrap_or_default(),
            },
        };
    }
}

/// What "Set up automatically" came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AutoSetup {
    /// The manual steps stay: why automatic set-up is not offered.
    NotOffered { reason: String },
    /// The browser came back from the provider's consent page.
    Finished {
        provider: String,
        outcome: SyncOutcome,
    },
}

impl DomainConnect {
    /// Whether `hostname`'s DNS provider supports Domain Connect and the platform's template,
    /// and if not, why (for the manual steps' explanation). `Ok` with the discovery and the
    /// question to ask when yes; an error when the provider's URLs lead where [`Targets`]
    /// does not allow.
    pub async fn offer(&self, hostname: &str) -> Result<std::result::Result<Offered, String>> {
        let Some(discovery) = self.discover(hostname).await? else {
            return Ok(Err(format!(
                "The DNS provider of {hostname} does not support Domain Connect; create the record by hand."
            )));
        };
        let service = service_for(&discovery);
        if !self
            .supports_template(&discovery.settings, PLATFORM_PROVIDER_ID, service)
            .await?
        {
            return Ok(Err(format!(
                "{} supports Domain Connect but not the platform's template; create the record by hand.",
                discovery.settings.provider_name
            )));
        }
        let consent = self.consent(&discovery).await?;
        Ok(Ok(Offered { discovery, consent }))
    }

    /// Opens `discovery`'s consent page ([`run_sync_flow`]) once the user has approved
    /// `approved_host`: refused, with nothing opened, when the page is now elsewhere or leads
    /// where [`Targets`] does not allow.
    pub async fn run(
        &self,
        discovery: &Discovery,
        approved_host: &str,
        open_browser: impl FnOnce(&str) -> std::result::Result<(), String>,
        wait: Duration,
    ) -> Result<SyncOutcome> {
        let consent = self.consent(discovery).await?;
        if consent.host != approved_host {
            return Err(Error::DomainConnect(format!(
                "{}'s consent page is now at {}, not at {approved_host} as you approved; nothing was opened. Try again.",
                consent.provider, consent.host
            )));
        }
        run_sync_flow(discovery, service_for(discovery), open_browser, wait).await
    }

    /// Sets `hostname` up through its DNS provider: discovery, the template check, then the
    /// consent page at `approved_host` (the host the user was shown, from [`Self::offer`])
    /// in the browser ([`Self::run`]).
    pub async fn set_up(
        &self,
        hostname: &str,
        approved_host: &str,
        open_browser: impl FnOnce(&str) -> std::result::Result<(), String>,
        wait: Duration,
    ) -> Result<AutoSetup> {
        let offered = match self.offer(hostname).await? {
            Ok(offered) => offered,
            Err(reason) => return Ok(AutoSetup::NotOffered { reason }),
        };
        let outcome = self
            .run(&offered.discovery, approved_host, open_browser, wait)
            .await?;
        Ok(AutoSetup::Finished {
            provider: offered.consent.provider,
            outcome,
        })
    }
}

/// The platform's template for the name: the apex one when the name is its zone.
fn service_for(discovery: &Discovery) -> &'static str {
    if discovery.host.is_empty() {
        APEX_SERVICE_ID
    } else {
        SUBDOMAIN_SERVICE_ID
    }
}

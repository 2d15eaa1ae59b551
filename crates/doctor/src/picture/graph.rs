//! The path as a graph: nodes by layer (registry, nameservers, answers, chain, target,
//! addresses) and edges, each with its verdict, built from a report. Both drawings read it.
//!
//! It is longer than the house's 500 lines (about 650 of code, and 130 of tests): one function,
//! `graph`, builds the path layer by layer, and each layer is found from the one before (the
//! nameservers from the delegation, each server's answer, the chain's names from the answers,
//! the addresses from the chain's end) through state they share (the node of each name and its
//! `NameFacts`). Split by layer, the pieces would hand that half-built state to each other.
//! The verdicts' words (`view_verdict`, `verdict_sentence`) stay beside the facts they read;
//! the layout and the drawings are already apart (`layout.rs`, `svg.rs`, `text.rs`).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::dns::AnswerStatus;
use crate::dns::presentation::normalise_name;
use crate::report::{
    AnswerChain, ChainEnd, FindingCode, HostReport, NameserverCheck, NameserverState, Severity,
    SourceKind, SourceView, TlsProbe,
};

/// What a node or an edge of the path is found to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Agrees with the platform's expected answer, serves the zone, a valid certificate.
    Right,
    /// Not what the platform asks for, a failure, a certificate for another name.
    Wrong,
    /// A cached answer the server keeps until then (a finding's `cached_until`).
    Stale(DateTime<Utc>),
    /// A nameserver that does not serve the zone: refuses, fails, is silent or has no address.
    Lame,
    /// A fact on the way that is neither right nor wrong (an alias, an address).
    Neutral,
}

impl Verdict {
    /// The symbol that says the verdict without colour.
    pub fn symbol(self) -> &'static str {
        match self {
            Verdict::Right => "✓",
            Verdict::Wrong | Verdict::Lame => "✗",
            Verdict::Stale(_) => "◷",
            Verdict::Neutral => "",
        }
    }

    /// The class the SVG and the window colour it by.
    pub fn class(self) -> &'static str {
        match self {
            Verdict::Right => "right",
            Verdict::Wrong => "wrong",
            Verdict::Stale(_) => "stale",
            Verdict::Lame => "lame",
            Verdict::Neutral => "neutral",
        }
    }
}

/// A cache's expiry as the picture says it: the time of day, by the run's clock (UTC).
pub fn until_words(until: DateTime<Utc>) -> String {
    format!("stale until {}", until.format("%H:%M UTC"))
}

/// The columns of the picture, left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Layer {
    Registry,
    Nameservers,
    Answers,
    /// The names of the chains, by their place in them (0: the first name after the answer).
    Names(usize),
    /// Each address, with TLS there.
    Addresses,
}

impl Layer {
    pub(super) fn heading(self) -> &'static str {
        match self {
            Layer::Registry => "Registry",
            Layer::Nameservers => "Nameservers",
            Layer::Answers => "Answers",
            Layer::Names(0) => "Names",
            Layer::Names(_) => "then",
            Layer::Addresses => "Addresses and TLS",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub layer: Layer,
    /// The name or label shown (may be shortened in the SVG; [`Node::tooltip`] has it whole).
    pub title: String,
    /// The verdict in words, without its symbol: `serves, serial 7`, `no such name`.
    pub words: String,
    pub verdict: Verdict,
    /// Everything about the node, a line each, for the SVG's `<title>`.
    pub tooltip: Vec<String>,
}

impl Node {
    /// The verdict line: its symbol and words.
    pub fn verdict_line(&self) -> String {
        match (self.verdict.symbol(), self.words.is_empty()) {
            ("", _) => self.words.clone(),
            (symbol, true) => symbol.to_owned(),
            (symbol, false) => format!("{symbol} {}", self.words),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edge {
    pub from: usize,
    pub to: usize,
    pub verdict: Verdict,
}

/// The path as a layered graph.
#[derive(Debug, Clone)]
pub(crate) struct Graph {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

impl Graph {
    fn add(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    fn connect(&mut self, from: usize, to: usize, verdict: Verdict) {
        let edge = Edge { from, to, verdict };
        if !self.edges.contains(&edge) {
            self.edges.push(edge);
        }
    }
}

/// The servers whose answers a finding says are cached until a time (`negative_cached`, and
/// `propagation_pending` for a resolver's old copy), with the latest such time for each.
pub(crate) fn stale_servers(host: &HostReport) -> BTreeMap<&str, DateTime<Utc>> {
    let mut stale: BTreeMap<&str, DateTime<Utc>> = BTreeMap::new();
    for finding in &host.findings {
        let Some(until) = finding.cached_until else {
            continue;
        };
        if !matches!(
            finding.code,
            FindingCode::NegativeCached | FindingCode::PropagationPending
        ) {
            continue;
        }
        for evidence in &finding.evidence {
            let entry = stale.entry(evidence.server.as_str()).or_insert(until);
            *entry = (*entry).max(until);
        }
    }
    stale
}

/// The verdict on one server's answer, and why, in a few words.
pub(crate) fn view_verdict(
    host: &HostReport,
    view: &SourceView,
    stale: &BTreeMap<&str, DateTime<Utc>>,
) -> (Verdict, String) {
    let chain = view.chain.as_ref();
    if let Some(ChainEnd::Failed { status, .. }) = chain.map(|chain| &chain.end) {
        return (Verdict::Wrong, failure_words(*status).to_owned());
    }
    if chain.is_none() && !view.status.is_answer() {
        return (Verdict::Wrong, failure_words(view.status).to_owned());
    }
    // The reference server is in a cache finding's evidence too: only the servers that
    // differ from it hold the stale copy.
    if view.agrees != Some(true)
        && let Some(until) = stale.get(view.source.label.as_str())
    {
        return (Verdict::Stale(*until), until_words(*until));
    }
    match chain.map(|chain| &chain.end) {
        Some(ChainEnd::NoSuchName { .. }) if chain.is_some_and(|c| !c.links.is_empty()) => {
            return (
                Verdict::Wrong,
                "the chain ends at a missing name".to_owned(),
            );
        }
        Some(ChainEnd::NoSuchName { .. }) => {
            return (Verdict::Wrong, "no such name".to_owned());
        }
        Some(ChainEnd::NoAddress { .. }) => {
            return (Verdict::Wrong, "no address at the end".to_owned());
        }
        _ => {}
    }
    if view.agrees == Some(false) {
        return (Verdict::Wrong, "differs from the zone's servers".to_owned());
    }
    let expected = host.expected_record.as_ref();
    if let (Some(expected), Some(chain)) = (expected, chain)
        && expected.record_type.eq_ignore_ascii_case("CNAME")
    {
        let target = normalise_name(&expected.value);
        return if chain_names(chain).any(|name| name == target) {
            (Verdict::Right, "to the platform".to_owned())
        } else if chain.links.is_empty() {
            (Verdict::Wrong, "no CNAME to the platform".to_owned())
        } else {
            (Verdict::Wrong, "not the platform's target".to_owned())
        };
    }
    let judged_right = host
        .findings
        .iter()
        .any(|finding| finding.code == FindingCode::RecordCorrect);
    let judged_wrong = host.findings.iter().any(|finding| {
        finding.severity == Severity::Error
            && matches!(
                finding.code,
                FindingCode::RecordMissing
                    | FindingCode::CnameMismatch
                    | FindingCode::ConflictingRecord
                    | FindingCode::CnameAtApex
                    | FindingCode::ApexAddressMismatch
            )
    });
    let elsewhere = host
        .findings
        .iter()
        .any(|finding| finding.code == FindingCode::LiveElsewhere);
    if judged_right {
        (Verdict::Right, "the platform's answer".to_owned())
    } else if elsewhere {
        // Served by another host today: not the platform's answer, and no mistake yet.
        (Verdict::Neutral, "another host's answer, today".to_owned())
    } else if judged_wrong {
        (Verdict::Wrong, "not the platform's answer".to_owned())
    } else {
        (Verdict::Neutral, "answered".to_owned())
    }
}

/// Every name a chain passes through after the name asked, its end included.
fn chain_names(chain: &AnswerChain) -> impl Iterator<Item = &str> {
    chain
        .links
        .iter()
        .map(|link| link.target.as_str())
        .chain(std::iter::once(chain.end.name()))
}

/// A server's failure, in words.
pub(crate) fn failure_words(status: AnswerStatus) -> &'static str {
    match status {
        AnswerStatus::NoError | AnswerStatus::NxDomain => "answered",
        AnswerStatus::ServFail => "server failure (SERVFAIL)",
        AnswerStatus::Refused => "refused (REFUSED)",
        AnswerStatus::OtherRcode => "an error",
        AnswerStatus::Timeout => "no answer in time",
        AnswerStatus::Failed => "unreachable",
    }
}

/// A nameserver's verdict and words: `serves, serial 7`, `lame: REFUSED`.
pub(crate) fn nameserver_verdict(nameserver: &NameserverCheck) -> (Verdict, String) {
    let mut words = match nameserver.state {
        NameserverState::Serves => match nameserver.serial {
            Some(serial) => format!("serves, serial {serial}"),
            None => "serves".to_owned(),
        },
        NameserverState::Lame | NameserverState::Silent if !nameserver.answered.is_empty() => {
            format!("lame: {}", nameserver.answered)
        }
        NameserverState::Lame => "lame".to_owned(),
        NameserverState::Silent => "lame: no answer".to_owned(),
        NameserverState::NoAddress => "lame: no address".to_owned(),
    };
    if !nameserver.in_registry {
        words.push_str("; not at the registry");
    } else if !nameserver.in_zone {
        words.push_str("; not in the zone's NS records");
    }
    let verdict = if nameserver.state == NameserverState::Serves {
        Verdict::Right
    } else {
        Verdict::Lame
    };
    (verdict, words)
}

/// The probes to show: one per address when the name reaches several, else the edge's.
pub(crate) fn probes(host: &HostReport) -> Vec<&TlsProbe> {
    if host.tls_addresses.is_empty() {
        host.tls.iter().collect()
    } else {
        host.tls_addresses.iter().collect()
    }
}

/// The address of `address:port` (`[2001:db8::1]:443` → `2001:db8::1`).
pub(crate) fn ip_of(address: &str) -> &str {
    if let Some(rest) = address.strip_prefix('[') {
        return rest.split_once(']').map_or(rest, |(ip, _)| ip);
    }
    match address.split_once(':') {
        // One colon: an IPv4 address (or a name) and its port; more is an IPv6 address.
        Some((ip, port)) if !port.contains(':') => ip,
        _ => address,
    }
}

/// TLS at one address: a certificate for the name, or what is wrong.
pub(crate) fn tls_verdict(probe: &TlsProbe, hostname: &str) -> (Verdict, String) {
    let Some(certificate) = probe.certificate.as_ref().filter(|_| probe.connected) else {
        let why = match probe.error.as_deref().map(str::to_ascii_lowercase) {
            Some(error) if error.contains("refused") => "connection refused",
            Some(error) if error.contains("timed out") || error.contains("within") => {
                "no answer in time"
            }
            _ => "no certificate",
        };
        return (Verdict::Wrong, why.to_owned());
    };
    if !certificate.covers_hostname {
        let other = certificate
            .names
            .first()
            .map_or(certificate.subject.as_str(), String::as_str);
        return (Verdict::Wrong, format!("certificate for {other}"));
    }
    if !certificate.trusted {
        let error = certificate
            .trust_error
            .as_deref()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let why = if error.contains("expired") {
            "certificate expired"
        } else if error.contains("notvalidyet") || error.contains("not valid yet") {
            "certificate not valid yet"
        } else {
            "certificate not trusted"
        };
        return (Verdict::Wrong, why.to_owned());
    }
    (Verdict::Right, format!("certificate for {hostname}"))
}

/// The key of a name node: a name that leads on (or holds addresses) is one node whoever
/// reached it; a negative end is a node of its own per kind, so that one server's "no such
/// name" never marks the name another server found.
fn name_key(name: &str, end: Option<&ChainEnd>) -> String {
    match end {
        Some(ChainEnd::NoSuchName { .. }) => format!("{name}\u{0}nxdomain"),
        Some(ChainEnd::NoAddress { .. }) => format!("{name}\u{0}nodata"),
        Some(ChainEnd::Failed { status, .. }) => format!("{name}\u{0}{}", status.label()),
        _ => name.to_owned(),
    }
}

/// What is known of a name node while the graph is built.
#[derive(Default)]
struct NameFacts {
    depth: usize,
    /// The end, when the node is a negative end.
    negative: Option<ChainEnd>,
    leads_on: bool,
    has_addresses: bool,
    out_of_zone: bool,
    /// The verdicts of the answers that reached it.
    reached_by: Vec<Verdict>,
}

/// The graph of the path for one host.
pub(crate) fn graph(host: &HostReport) -> Graph {
    let mut graph = Graph {
        nodes: Vec::new(),
        edges: Vec::new(),
    };
    let stale = stale_servers(host);
    let target = host
        .expected_record
        .as_ref()
        .map(|record| normalise_name(&record.value));

    // The registry and the nameservers it delegates to.
    let mut nameserver_nodes: Vec<(&NameserverCheck, usize, Verdict)> = Vec::new();
    if let Some(delegation) = &host.delegation {
        let mismatch = host
            .findings
            .iter()
            .any(|finding| finding.code == FindingCode::DelegationMismatch);
        let (verdict, words) = if delegation.registry_nameservers.is_empty() {
            (Verdict::Wrong, "no delegation found".to_owned())
        } else if mismatch {
            (Verdict::Wrong, "NS set differs from the zone's".to_owned())
        } else {
            (Verdict::Right, "delegates the zone".to_owned())
        };
        let parent = registry_name(&delegation.parent_zone);
        let mut tooltip = vec![format!("{parent} (registry): {words}")];
        if !delegation.parent_servers.is_empty() {
            tooltip.push(format!("asked {}", delegation.parent_servers.join(", ")));
        }
        if !delegation.registry_nameservers.is_empty() {
            tooltip.push(format!(
                "NS at the registry: {}",
                delegation.registry_nameservers.join(", ")
            ));
        }
        if !delegation.zone_nameservers.is_empty() {
            tooltip.push(format!(
                "NS in the zone: {}",
                delegation.zone_nameservers.join(", ")
            ));
        }
        tooltip.insert(1, format!("the parent of {}", delegation.zone));
        let registry = graph.add(Node {
            layer: Layer::Registry,
            title: format!("{parent} (registry)"),
            words,
            verdict,
            tooltip,
        });
        for nameserver in &delegation.nameservers {
            let (verdict, words) = nameserver_verdict(nameserver);
            let mut tooltip = vec![format!("{}: {words}", nameserver.name)];
            if let Some(address) = &nameserver.address {
                tooltip.push(format!("asked at {address}"));
            }
            if let Some(provider) = &nameserver.provider {
                tooltip.push(format!("provider: {provider}"));
            }
            let node = graph.add(Node {
                layer: Layer::Nameservers,
                title: nameserver.name.clone(),
                words,
                verdict,
                tooltip,
            });
            if nameserver.in_registry {
                graph.connect(registry, node, verdict);
            }
            nameserver_nodes.push((nameserver, node, verdict));
        }
    }

    // Each server's answer, then the chain it gives.
    let mut names: BTreeMap<String, (usize, NameFacts)> = BTreeMap::new();
    let mut addresses: BTreeMap<String, usize> = BTreeMap::new();
    let mut chain_edges: Vec<(usize, usize)> = Vec::new();
    let mut first_hops: Vec<(usize, usize, Verdict)> = Vec::new();
    let mut address_edges: Vec<(usize, String)> = Vec::new();
    let mut views: Vec<&SourceView> = host.views.iter().collect();
    // The zone's servers first, as the nameservers column lists them.
    views.sort_by_key(|view| view.source.kind != SourceKind::Authoritative);
    for view in views {
        let (verdict, words) = view_verdict(host, view, &stale);
        let chain_text = view
            .chain
            .as_ref()
            .map(AnswerChain::to_text)
            .unwrap_or_else(|| view.status.label().to_owned());
        let answer = graph.add(Node {
            layer: Layer::Answers,
            title: short_label(&view.source.label),
            words: words.clone(),
            verdict,
            tooltip: vec![
                format!("{} ({})", view.source.label, view.source.address),
                chain_text,
                verdict_sentence(verdict, &words),
            ],
        });
        if view.source.kind == SourceKind::Authoritative
            && let Some((_, node, _)) = nameserver_nodes
                .iter()
                .find(|(nameserver, _, _)| asks(nameserver, view))
        {
            graph.connect(*node, answer, verdict);
        }
        let Some(chain) = &view.chain else {
            continue;
        };
        if matches!(chain.end, ChainEnd::Failed { .. }) && chain.links.is_empty() {
            // The server failed: its answer node says so, and no name was reached.
            continue;
        }
        let mut sequence: Vec<&str> = chain
            .links
            .iter()
            .map(|link| link.target.as_str())
            .collect();
        if chain.links.is_empty() {
            sequence.push(chain.end.name());
        }
        let mut previous = answer;
        for (depth, name) in sequence.iter().enumerate() {
            let last = depth + 1 == sequence.len();
            let end = last.then_some(&chain.end);
            let key = name_key(name, end);
            let next = names.len();
            let (node, facts) = names.entry(key).or_insert_with(|| {
                (
                    next,
                    NameFacts {
                        depth,
                        ..NameFacts::default()
                    },
                )
            });
            facts.depth = facts.depth.max(depth);
            match end {
                Some(ChainEnd::Addresses {
                    addresses: found, ..
                }) => {
                    facts.has_addresses = true;
                    for address in found {
                        address_edges.push((*node, address.clone()));
                    }
                }
                Some(ChainEnd::OutOfZone { .. }) => facts.out_of_zone = true,
                Some(
                    negative @ (ChainEnd::NoSuchName { .. }
                    | ChainEnd::NoAddress { .. }
                    | ChainEnd::Failed { .. }),
                ) => facts.negative = Some(negative.clone()),
                None => facts.leads_on = true,
            }
            facts.reached_by.push(verdict);
            if previous == answer {
                first_hops.push((answer, *node, verdict));
            } else {
                chain_edges.push((previous, *node));
            }
            previous = *node;
        }
    }

    // The name nodes, now that all that reaches them is known. A zone's server that stops at
    // a name out of its zone says nothing of it: when a resolver found that name missing,
    // both point at the one "no such name" node (unless only stale caches said so).
    let stale_only = |facts: &NameFacts| {
        !facts.reached_by.is_empty()
            && facts
                .reached_by
                .iter()
                .all(|verdict| matches!(verdict, Verdict::Stale(_)))
    };
    let mut merged_into: BTreeMap<usize, usize> = BTreeMap::new();
    for (key, (index, facts)) in &names {
        if facts.negative.is_some() || !facts.out_of_zone || facts.leads_on || facts.has_addresses {
            continue;
        }
        let missing = ["nxdomain", "nodata"].iter().find_map(|kind| {
            names
                .get(&format!("{key}\u{0}{kind}"))
                .filter(|(_, other)| !stale_only(other))
        });
        if let Some((other, _)) = missing {
            merged_into.insert(*index, *other);
        }
    }
    let mut ordered: Vec<(usize, String, NameFacts)> = names
        .into_iter()
        .map(|(key, (index, facts))| (index, key, facts))
        .collect();
    ordered.sort_by_key(|(index, _, _)| *index);
    let depth_of: BTreeMap<usize, usize> = ordered
        .iter()
        .map(|(index, _, facts)| (*index, facts.depth))
        .collect();
    let mut name_nodes = vec![usize::MAX; ordered.len()];
    for (index, key, facts) in ordered {
        if merged_into.contains_key(&index) {
            continue;
        }
        let depth = merged_into
            .iter()
            .filter(|(_, into)| **into == index)
            .filter_map(|(from, _)| depth_of.get(from).copied())
            .fold(facts.depth, usize::max);
        let name = key.split('\u{0}').next().unwrap_or_default().to_owned();
        let is_target = target.as_deref() == Some(name.as_str());
        let (verdict, words) = match &facts.negative {
            Some(end) => {
                let what = match end {
                    ChainEnd::NoSuchName { .. } => "no such name".to_owned(),
                    ChainEnd::NoAddress { .. } => "no address".to_owned(),
                    ChainEnd::Failed { status, .. } => failure_words(*status).to_owned(),
                    _ => String::new(),
                };
                let stale_until = stale_only(&facts)
                    .then(|| {
                        facts
                            .reached_by
                            .iter()
                            .filter_map(|verdict| match verdict {
                                Verdict::Stale(until) => Some(*until),
                                _ => None,
                            })
                            .max()
                    })
                    .flatten();
                match stale_until {
                    Some(until) => (Verdict::Stale(until), format!("cached: {what}")),
                    None => (Verdict::Wrong, what),
                }
            }
            None if is_target => (Verdict::Right, "platform target".to_owned()),
            None if facts.leads_on => (Verdict::Neutral, "an alias (CNAME)".to_owned()),
            None if facts.has_addresses => (Verdict::Neutral, "has addresses".to_owned()),
            None if facts.out_of_zone => (Verdict::Neutral, "another zone's to answer".to_owned()),
            None => (Verdict::Neutral, String::new()),
        };
        let node = graph.add(Node {
            layer: Layer::Names(depth),
            title: name.clone(),
            tooltip: vec![name.clone(), verdict_sentence(verdict, &words)],
            words,
            verdict,
        });
        name_nodes[index] = node;
    }
    for (from, into) in &merged_into {
        name_nodes[*from] = name_nodes[*into];
    }
    for (answer, name, verdict) in first_hops {
        graph.connect(answer, name_nodes[name], verdict);
    }
    for (from, to) in chain_edges {
        let verdict = graph.nodes[name_nodes[to]].verdict;
        graph.connect(name_nodes[from], name_nodes[to], verdict);
    }

    // The addresses, each with TLS there: an address is where a connection goes, so the
    // certificate it serves is its verdict.
    for (name, address) in address_edges {
        let node = address_node(&mut graph, &mut addresses, &address);
        graph.connect(name_nodes[name], node, Verdict::Neutral);
    }
    let probes = probes(host);
    for probe in &probes {
        let ip = ip_of(&probe.address).to_owned();
        let node = address_node(&mut graph, &mut addresses, &ip);
        let (verdict, words) = tls_verdict(probe, &host.hostname);
        let address = &mut graph.nodes[node];
        if address.verdict == Verdict::Wrong {
            continue;
        }
        // The address is the node's title; its port (a loopback edge's is an internal) is not
        // said: the edge is where the name's HTTPS goes, whatever port it listens on.
        address.words = match verdict {
            Verdict::Right => "TLS valid".to_owned(),
            _ => format!(
                "TLS: {}",
                words.strip_prefix("certificate ").unwrap_or(&words)
            ),
        };
        address.verdict = verdict;
        address.tooltip.push(format!(
            "TLS at {ip}: {}",
            verdict_sentence(verdict, &words)
        ));
        if let Some(certificate) = &probe.certificate {
            address.tooltip.push(format!(
                "certificate names: {}",
                certificate.names.join(", ")
            ));
            address
                .tooltip
                .push(format!("issuer: {}", certificate.issuer));
        }
        if let Some(error) = &probe.error {
            address.tooltip.push(error.clone());
        }
    }
    // No probe at an address (none at all when the DNS is not right yet): said, not left blank.
    for node in addresses.values() {
        let address = &mut graph.nodes[*node];
        if address.words.is_empty() {
            address.words = "TLS not checked".to_owned();
        }
    }
    graph
}

fn address_node(graph: &mut Graph, known: &mut BTreeMap<String, usize>, address: &str) -> usize {
    if let Some(node) = known.get(address) {
        return *node;
    }
    let family = if address.contains(':') {
        "IPv6"
    } else {
        "IPv4"
    };
    let node = graph.add(Node {
        layer: Layer::Addresses,
        title: address.to_owned(),
        words: String::new(),
        verdict: Verdict::Neutral,
        tooltip: vec![format!("{address} ({family})")],
    });
    known.insert(address.to_owned(), node);
    node
}

/// The parent zone for a person: `com`, or `the root` for a top-level domain's parent.
pub(crate) fn registry_name(parent_zone: &str) -> String {
    let parent = parent_zone.trim_end_matches('.');
    if parent.is_empty() {
        "the root".to_owned()
    } else {
        parent.to_owned()
    }
}

/// Whether `view` is the answer of `nameserver`: asked at its address, or labelled with its
/// name.
fn asks(nameserver: &NameserverCheck, view: &SourceView) -> bool {
    nameserver.address.as_deref() == Some(view.source.address.as_str())
        || view
            .source
            .label
            .strip_prefix(nameserver.name.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// A server's label without what its column already says: `ns1.example.com` for
/// `ns1.example.com (authoritative)`, `system resolver 127.0.0.53` without its port 53.
fn short_label(label: &str) -> String {
    let label = label.strip_suffix(" (authoritative)").unwrap_or(label);
    label.strip_suffix(":53").unwrap_or(label).to_owned()
}

/// `✓ serves, serial 7` as a sentence for a tooltip, the verdict named.
fn verdict_sentence(verdict: Verdict, words: &str) -> String {
    let word = match verdict {
        Verdict::Right => "right",
        Verdict::Wrong => "wrong",
        // Its words say "stale until …" already.
        Verdict::Stale(_) | Verdict::Neutral => return words.to_owned(),
        Verdict::Lame => "lame",
    };
    if words.is_empty() {
        word.to_owned()
    } else {
        format!("{word}: {words}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::*;

    #[test]
    fn a_no_such_name_end_sits_on_the_target_not_on_the_name() {
        let host = misspelt_target();
        let graph = graph(&host);
        let end = graph
            .nodes
            .iter()
            .find(|node| node.title == "cname.pages.exmaple.net")
            .expect("the target is a node");
        assert_eq!(end.verdict, Verdict::Wrong);
        assert_eq!(end.words, "no such name");
        assert!(
            graph
                .nodes
                .iter()
                .filter(|node| node.title == "www.example.com")
                .all(|node| !node.words.contains("no such name")),
            "{graph:#?}"
        );
    }

    #[test]
    fn a_lame_server_and_a_stale_cache_have_their_verdicts() {
        let host = half_moved();
        let graph = graph(&host);
        let lame = graph
            .nodes
            .iter()
            .find(|node| node.title == "ns2.other.net")
            .unwrap();
        assert_eq!(lame.verdict, Verdict::Lame);
        assert_eq!(lame.words, "lame: REFUSED");
        let serves = graph
            .nodes
            .iter()
            .find(|node| node.title == "ns1.example.com" && node.layer == Layer::Nameservers)
            .unwrap();
        assert_eq!(serves.words, "serves, serial 7");
        let cached = graph
            .nodes
            .iter()
            .find(|node| node.title == "Google 8.8.8.8")
            .unwrap();
        assert!(matches!(cached.verdict, Verdict::Stale(_)), "{cached:?}");
        assert_eq!(cached.words, "stale until 12:45 UTC");
        // the registry's edge to the lame server is lame, to the serving one right
        let registry = graph
            .nodes
            .iter()
            .position(|node| node.layer == Layer::Registry)
            .unwrap();
        let to = |title: &str| {
            graph
                .edges
                .iter()
                .find(|edge| edge.from == registry && graph.nodes[edge.to].title == title)
                .map(|edge| edge.verdict)
        };
        assert_eq!(to("ns2.other.net"), Some(Verdict::Lame));
        assert_eq!(to("ns1.example.com"), Some(Verdict::Right));
        // the nameserver's own answer hangs off it
        let ns1 = graph
            .nodes
            .iter()
            .position(|node| node.title == "ns1.example.com")
            .unwrap();
        assert!(
            graph
                .edges
                .iter()
                .any(|edge| edge.from == ns1 && graph.nodes[edge.to].layer == Layer::Answers)
        );
    }

    #[test]
    fn tls_at_each_address() {
        let mut host = half_moved();
        // a loopback edge's port is an internal: the node says TLS, not where it listens
        host.tls_addresses[0].address = "127.0.0.10:41727".to_owned();
        let graph = graph(&host);
        let tls: Vec<&Node> = graph
            .nodes
            .iter()
            .filter(|node| node.layer == Layer::Addresses)
            .collect();
        assert_eq!(tls.len(), 2);
        assert_eq!(tls[0].title, "127.0.0.10");
        assert_eq!(tls[0].verdict, Verdict::Right);
        assert_eq!(tls[0].words, "TLS valid");
        assert!(tls[0].tooltip.iter().all(|line| !line.contains("41727")));
        assert_eq!(tls[1].verdict, Verdict::Wrong);
        assert_eq!(tls[1].words, "TLS: for other.example.org");
        // both reached from the target
        let target = graph
            .nodes
            .iter()
            .position(|node| node.title == TARGET)
            .unwrap();
        assert_eq!(
            graph
                .edges
                .iter()
                .filter(|edge| edge.from == target)
                .count(),
            2
        );
    }

    #[test]
    fn an_address_where_a_cname_belongs_is_said_so() {
        let mut host = misspelt_target();
        host.findings.clear();
        host.views[1].agrees = None;
        host.views[1].chain = Some(AnswerChain {
            links: Vec::new(),
            end: ChainEnd::Addresses {
                name: "www.example.com".to_owned(),
                addresses: vec!["192.0.2.10".to_owned()],
            },
        });
        let (verdict, words) = view_verdict(&host, &host.views[1], &BTreeMap::new());
        assert_eq!(
            (verdict, words.as_str()),
            (Verdict::Wrong, "no CNAME to the platform")
        );
    }

    #[test]
    fn addresses_lose_their_port() {
        assert_eq!(ip_of("192.0.2.7:443"), "192.0.2.7");
        assert_eq!(ip_of("[2001:db8::7]:443"), "2001:db8::7");
        assert_eq!(ip_of("192.0.2.7"), "192.0.2.7");
        assert_eq!(ip_of("2001:db8::7"), "2001:db8::7");
    }
}

//! `domain-desk doctor`: the DNS doctor over hostnames from the arguments or a file, its
//! report as text, Markdown or JSON (and with `--svg` the picture of each name's path, the
//! drawing the window's Diagnose panel shows), and exit status 1 when any finding is an error.
//! Next to `domain-desk serve` (`--resolver` its DNS server) it takes what the service says
//! from the same builder as the window's Diagnose panel ([`domain_desk_app::doctor_options`]).
//!
//! It is longer than the house's 500 lines with its tests (about 250 of code, 320 of tests):
//! the code is one command, and its seven tests parse real command lines through `Cli`
//! (`doctor_cli`) and check what each flag gives, three of them against a local service on
//! loopback (`start_service`), one checking that the window's Diagnose gives the same report.
//! The options builder is apart already (`domain_desk_app::doctor_options`), as are the exit
//! statuses (`output.rs`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use domain_desk_api::local::LocalInfo;
use domain_desk_client::{ClientPool, LocalControl};
use domain_desk_doctor::DoctorOptions;

use super::connect::{ApiArgs, shared_pool};
use super::output::report_error;

/// `domain-desk doctor`: see `domain_desk_doctor::diagnose`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Hostnames to diagnose (Unicode or Punycode).
    #[arg(value_name = "HOSTNAME", required_unless_present_any = ["file", "replay"])]
    pub hostnames: Vec<String>,
    /// Read more hostnames from a file, one per line (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    pub file: Option<std::path::PathBuf>,
    /// Ask only this DNS server (repeatable). Offline mode: no public or system resolver,
    /// no other nameserver is contacted.
    #[arg(long = "resolver", value_name = "ADDR")]
    pub resolvers: Vec<std::net::SocketAddr>,
    /// The platform DNS target names must point at. Default with --resolver: what the local
    /// service's /_local/info says (or its default target when it cannot be reached).
    #[arg(long, value_name = "NAME")]
    pub target: Option<String>,
    /// What CAA records must name for the platform's CA (default: from /_local/info, else
    /// letsencrypt.org).
    #[arg(long = "ca", value_name = "NAME")]
    pub ca_identity: Option<String>,
    /// Where the TLS edge listens, when not at the hostname's address on port 443.
    #[arg(long, value_name = "ADDR")]
    pub edge: Option<std::net::SocketAddr>,
    /// Skip the TLS probe of the edge.
    #[arg(long)]
    pub no_tls: bool,
    /// How long one DNS question may take, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1500)]
    pub timeout_ms: u64,
    /// Hostnames diagnosed at once.
    #[arg(long, value_name = "N", default_value_t = domain_desk_doctor::options::DEFAULT_CONCURRENCY)]
    pub concurrency: usize,
    /// Print the report as Markdown for a support ticket (`--json` prints it as JSON).
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// Validate DNSSEC from the root's trust anchor down to each name (through the first
    /// resolver, with checking disabled): dnssec_valid, dnssec_unsigned_ok or dnssec_bogus.
    #[arg(long)]
    pub dnssec: bool,
    /// DNSKEY or DS records in zone-file form to trust instead of IANA's root keys (a private
    /// root); the keys a DS names are fetched from the first resolver. Implies --dnssec.
    #[arg(long, value_name = "FILE")]
    pub trust_anchor: Option<std::path::PathBuf>,
    /// Also write every DNS question, answer and TLS certificate chain seen into FILE (a
    /// versioned JSON capture that `--replay` reads).
    #[arg(long, value_name = "FILE", conflicts_with = "replay")]
    pub capture: Option<std::path::PathBuf>,
    /// Also write the picture of the path a lookup takes (the registry, the nameservers, each
    /// server's answer, the CNAME chain, the addresses and TLS at each, every step marked
    /// right, wrong, stale or lame) to FILE as an SVG, light or dark as the viewer's system
    /// asks. With several hostnames, one file per hostname, its name before FILE's extension:
    /// `--svg path.svg` writes `path-www.example.com.svg`, `path-shop.example.com.svg`, ….
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Re-run the analysis of a capture with no network, giving the report it gave; the
    /// hostnames and options are the capture's.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["hostnames", "file", "resolvers", "target", "ca_identity", "edge", "no_tls", "dnssec", "trust_anchor"])]
    pub replay: Option<std::path::PathBuf>,
}

/// Diagnoses the hostnames `args` names and prints the report (as JSON with `--json`); the
/// exit status says whether any finding is an error. `--local-api` is where the local service
/// is asked, with `--resolver`.
pub fn run(args: DoctorArgs, connection: &ApiArgs) -> ExitCode {
    if let Err(mistake) = one_format(&args, connection.json) {
        report_error(&mistake);
        return ExitCode::from(2);
    }
    let mut hostnames = args.hostnames.clone();
    if let Some(file) = &args.file {
        let text = if file.as_os_str() == "-" {
            std::io::read_to_string(std::io::stdin())
        } else {
            std::fs::read_to_string(file)
        };
        match text {
            Ok(text) => hostnames.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|line| !line.is_empty() && !line.starts_with('#'))
                    .map(str::to_owned),
            ),
            Err(err) => {
                report_error(&format!("cannot read {}: {err}", file.display()));
                return ExitCode::from(2);
            }
        }
    }
    // One thread: the doctor waits on the network, and a batch of 1,000 hostnames ran in
    // 122 ms on one thread against 150 ms on a thread per core, where every answer woke
    // another thread (`cargo xtask bench doctor` runs it the same way).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            report_error(&err);
            return ExitCode::from(2);
        }
    };
    let outcome = runtime.block_on(async {
        if let Some(file) = &args.replay {
            let capture = domain_desk_doctor::Capture::load(file)?;
            return Ok(domain_desk_doctor::replay(&capture).await?);
        }
        let options = doctor_options(&args, connection.local_api, &shared_pool()).await?;
        Ok(match &args.capture {
            Some(file) => {
                // The file goes to support: it carries only what these names needed.
                let options = domain_desk_app::doctor_options::scoped_to(options, &hostnames);
                domain_desk_doctor::diagnose_into_file(&hostnames, &options, file).await?
            }
            None => domain_desk_doctor::diagnose(&hostnames, &options).await?,
        })
    });
    let report = match outcome {
        Ok(report) => report,
        // The doctor's own sentence, without the window's "the DNS doctor:" in front.
        Err(crate::Error::App(domain_desk_app::Error::Doctor(err))) => {
            report_error(&err);
            return ExitCode::from(2);
        }
        Err(err) => {
            report_error(&err);
            return ExitCode::from(2);
        }
    };
    if let Some(file) = &args.svg
        && let Err(err) = write_pictures(&report, file)
    {
        report_error(&err);
        return ExitCode::from(2);
    }
    if connection.json {
        match serde_json::to_string_pretty(&report) {
            Ok(json) => println!("{json}"),
            Err(err) => {
                report_error(&err);
                return ExitCode::from(2);
            }
        }
    } else if args.markdown {
        print!("{}", report.to_markdown());
    } else {
        print!("{}", report.to_text());
    }
    if report.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Where `--svg FILE` puts the picture of each of `hostnames`: FILE itself for one name; for
/// several, FILE's name with `-` and the hostname before its extension. A name that is not a
/// hostname keeps only letters, digits, dots and hyphens, so it can never leave FILE's folder.
fn picture_paths(file: &Path, hostnames: &[&str]) -> Vec<PathBuf> {
    if hostnames.len() == 1 {
        return vec![file.to_path_buf()];
    }
    let stem = file
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let extension = file
        .extension()
        .map(|extension| format!(".{}", extension.to_string_lossy()))
        .unwrap_or_else(|| ".svg".to_owned());
    hostnames
        .iter()
        .map(|hostname| {
            let safe: String = hostname
                .chars()
                .map(|character| {
                    if character.is_ascii_alphanumeric() || matches!(character, '.' | '-') {
                        character.to_ascii_lowercase()
                    } else {
                        '_'
                    }
                })
                .collect();
            let safe = safe.trim_start_matches('.');
            file.with_file_name(format!("{stem}-{safe}{extension}"))
        })
        .collect()
}

/// Writes the picture of each host's path ([`domain_desk_doctor::picture::to_svg`], both
/// colour sets) where [`picture_paths`] says, each file whole or not at all.
fn write_pictures(report: &domain_desk_doctor::Report, file: &Path) -> Result<(), String> {
    let hostnames: Vec<&str> = report
        .hosts
        .iter()
        .map(|host| host.hostname.as_str())
        .collect();
    for (host, path) in report.hosts.iter().zip(picture_paths(file, &hostnames)) {
        let svg =
            domain_desk_doctor::picture::to_svg(host, domain_desk_doctor::picture::Theme::System);
        domain_desk_api::private_file::write_atomically(&path, svg.as_bytes())
            .map_err(|err| format!("cannot write the picture to {}: {err}", path.display()))?;
    }
    Ok(())
}

/// `--json` (which may come before `doctor`, where clap does not see the conflict) or
/// `--markdown`, not both.
fn one_format(args: &DoctorArgs, json: bool) -> Result<(), String> {
    if json && args.markdown {
        return Err("--json and --markdown are two formats for the report: choose one.".into());
    }
    Ok(())
}

/// The doctor's options from the flags. With `--resolver` the run is offline: the target, CA,
/// edge, CA certificate, attached hostnames and DNSSEC key come from the local service at
/// `--local-api` through the builder the window uses ([`domain_desk_app::doctor_options`]) when it
/// answers, or are the service's defaults when it does not; the flags given go on top. The
/// DNSSEC key is used only with `--dnssec`. Time is judged by the service's clock whenever it
/// answers (its clock may run fast), by this computer's otherwise.
async fn doctor_options(
    args: &DoctorArgs,
    local_api: SocketAddr,
    clients: &ClientPool,
) -> crate::Result<DoctorOptions> {
    let offline = !args.resolvers.is_empty();
    let needs_service = offline
        && (args.target.is_none()
            || args.ca_identity.is_none()
            || !args.no_tls
            || (args.dnssec && args.trust_anchor.is_none()));
    let service = if needs_service && local_api.ip().is_loopback() {
        local_service(local_api).await
    } else {
        None
    };
    let mut options = match (&service, &args.target) {
        (Some((control, info)), _) => {
            domain_desk_app::doctor_options::for_local_service(control, info, clients).await?
        }
        (None, Some(target)) => DoctorOptions::new(target.clone()),
        (None, None) if offline => {
            DoctorOptions::new(domain_desk_service::ServiceSettings::default().platform_dns_target)
        }
        (None, None) => {
            return Err(domain_desk_doctor::Error::InvalidOptions(
                "Give the platform DNS target with --target NAME (or point --resolver at the local service).".to_owned(),
            )
            .into());
        }
    };
    if service.is_none()
        && offline
        && local_api.ip().is_loopback()
        && let Some((control, _)) = local_service(local_api).await
    {
        // every flag given, but the service is there: its clock is still the platform's
        options.clock = domain_desk_app::doctor_options::platform_clock(&control).await?;
    }
    if let Some(target) = &args.target {
        options.target.clone_from(target);
    }
    if let Some(ca_identity) = &args.ca_identity {
        options.ca_identity.clone_from(ca_identity);
    }
    if offline {
        options.resolvers.clone_from(&args.resolvers);
    }
    if args.edge.is_some() {
        options.edge = args.edge;
    }
    options.timeout = std::time::Duration::from_millis(args.timeout_ms);
    options.tls_probe = !args.no_tls;
    options.concurrency = args.concurrency.max(1);
    options.dnssec = args.dnssec || args.trust_anchor.is_some();
    if let Some(file) = &args.trust_anchor {
        options.trust_anchor = Some(std::fs::read_to_string(file).map_err(|err| {
            domain_desk_doctor::Error::InvalidOptions(format!(
                "cannot read the trust anchor {}: {err}",
                file.display()
            ))
        })?);
    } else if !options.dnssec {
        options.trust_anchor = None;
    }
    Ok(options)
}

/// The local service at `api` and its `/_local/info`, if it answers within a second.
async fn local_service(api: SocketAddr) -> Option<(LocalControl, LocalInfo)> {
    let control = LocalControl::new(&format!("http://{api}")).ok()?;
    let info = tokio::time::timeout(Duration::from_secs(1), control.info())
        .await
        .ok()?
        .ok()?;
    Some((control, info))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::super::{Cli, Command};
    use super::*;

    fn doctor_args(flags: &[&str]) -> Result<DoctorArgs, clap::Error> {
        doctor_cli(flags).map(|(args, _)| args)
    }

    fn doctor_cli(flags: &[&str]) -> Result<(DoctorArgs, ApiArgs), clap::Error> {
        let args = ["domain-desk", "doctor"].iter().chain(flags);
        let cli = Cli::try_parse_from(args)?;
        match cli.command {
            Some(Command::Doctor(args)) => Ok((args, cli.api)),
            other => panic!("not doctor: {other:?}"),
        }
    }

    /// What the doctor asks without --local-api: the address `domain-desk serve` listens on.
    fn default_api() -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], 8787))
    }

    /// `--json` and `--local-api` are the command line's global flags; the doctor takes them
    /// before or after its name, and --json with --markdown is a mistake.
    #[test]
    fn the_doctor_takes_the_global_flags_on_either_side() {
        for flags in [
            &[
                "domain-desk",
                "--json",
                "--local-api",
                "127.0.0.1:9",
                "doctor",
                "a.example",
            ][..],
            &[
                "domain-desk",
                "doctor",
                "a.example",
                "--json",
                "--local-api",
                "127.0.0.1:9",
            ][..],
        ] {
            let cli = Cli::try_parse_from(flags).unwrap();
            assert!(cli.api.json, "{flags:?}");
            assert_eq!(cli.api.local_api, SocketAddr::from(([127, 0, 0, 1], 9)));
        }
        assert_eq!(
            doctor_cli(&["a.example"]).unwrap().1.local_api,
            default_api()
        );
        assert!(doctor_args(&["--json", "--markdown", "a.example"]).is_err());
        let (args, api) = doctor_cli(&["--markdown", "a.example"]).unwrap();
        assert!(one_format(&args, api.json).is_ok());
        let cli = Cli::try_parse_from(["domain-desk", "--json", "doctor", "--markdown", "a"])
            .expect("clap does not see the conflict across the subcommand");
        let Some(Command::Doctor(args)) = &cli.command else {
            panic!("not doctor: {cli:?}");
        };
        assert!(one_format(args, cli.api.json).is_err());
    }

    #[test]
    fn doctor_replays_a_capture_alone_and_captures_a_live_run() {
        let replay = doctor_args(&["--replay", "seen.json"]).unwrap();
        assert_eq!(
            replay.replay.as_deref(),
            Some(std::path::Path::new("seen.json"))
        );
        let capture = doctor_args(&["--capture", "seen.json", "www.example.com"]).unwrap();
        assert_eq!(capture.hostnames, ["www.example.com"]);
        assert!(capture.capture.is_some());
        // a replay takes its hostnames and options from the capture, never from flags
        for flags in [
            &["--replay", "seen.json", "www.example.com"][..],
            &["--replay", "seen.json", "--resolver", "127.0.0.1:53"][..],
            &["--replay", "seen.json", "--target", "edge.example.net"][..],
            &["--replay", "seen.json", "--capture", "again.json"][..],
            &["--replay", "seen.json", "--trust-anchor", "root.key"][..],
        ] {
            assert!(doctor_args(flags).is_err(), "{flags:?}");
        }
        assert!(doctor_args(&["--capture", "seen.json"]).is_err());
    }

    #[tokio::test]
    async fn a_trust_anchor_file_turns_dnssec_on_and_a_missing_one_is_an_error() {
        let directory = tempfile::tempdir().unwrap();
        let anchor = directory.path().join("root.key");
        std::fs::write(&anchor, ". IN DNSKEY 257 3 13 AAAA\n").unwrap();
        let path = anchor.to_string_lossy().into_owned();
        let args = doctor_args(&[
            "--target",
            "edge.example.net",
            "--trust-anchor",
            &path,
            "a.example.com",
        ])
        .unwrap();
        let options = doctor_options(&args, default_api(), &ClientPool::new())
            .await
            .unwrap();
        assert!(options.dnssec);
        assert_eq!(
            options.trust_anchor.as_deref(),
            Some(". IN DNSKEY 257 3 13 AAAA\n")
        );
        // a real platform: time is this computer's
        assert_eq!(options.clock, domain_desk_doctor::RunClock::Wall);
        let plain = doctor_args(&["--target", "edge.example.net", "a.example.com"]).unwrap();
        assert!(
            !doctor_options(&plain, default_api(), &ClientPool::new())
                .await
                .unwrap()
                .dnssec
        );
        let missing = directory
            .path()
            .join("none.key")
            .to_string_lossy()
            .into_owned();
        let args = doctor_args(&[
            "--target",
            "edge.example.net",
            "--trust-anchor",
            &missing,
            "a.example.com",
        ])
        .unwrap();
        match doctor_options(&args, default_api(), &ClientPool::new()).await {
            Err(error) => assert!(error.to_string().contains("none.key"), "{error}"),
            Ok(_) => panic!("a missing trust anchor was accepted"),
        }
    }

    /// `doctor --resolver <service> --dnssec` against `serve --sign-zones` validates from the
    /// key the service publishes; a --trust-anchor file still wins, and an unsigned service
    /// leaves IANA's keys.
    /// A local service on loopback with its clock stopped (its zones signed with
    /// `sign_zones`): what it says of itself, and the sender whose drop stops it.
    async fn start_service(
        sign_zones: bool,
    ) -> (
        domain_desk_api::local::LocalInfo,
        tokio::sync::oneshot::Sender<()>,
    ) {
        use domain_desk_service::{Service, ServiceSettings, Storage};
        let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        let service = Service::bind(ServiceSettings {
            storage: Storage::Memory,
            api_addr: loopback,
            dns_addr: loopback,
            edge_https_addr: loopback,
            edge_http_addr: loopback,
            clock_speed: 0.0,
            sign_zones,
            ..ServiceSettings::default()
        })
        .await
        .unwrap();
        let info = service.info().await.unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(service.run(async {
            let _ = stopped.await;
        }));
        (info, stop)
    }

    #[tokio::test]
    async fn the_doctor_takes_a_signing_services_trust_anchor() {
        let (signed, _stop_signed) = start_service(true).await;
        let (unsigned, _stop_unsigned) = start_service(false).await;
        let anchor = signed.dnssec_trust_anchor.clone().unwrap();
        let args = |info: &domain_desk_api::local::LocalInfo, extra: &[&str]| {
            let dns = info.dns.clone().unwrap();
            let mut flags = vec!["--resolver", &dns, "--local-api", &info.api, "--no-tls"];
            flags.extend_from_slice(extra);
            flags.push("www.example.com");
            doctor_cli(&flags).unwrap()
        };
        let options_for = async |info: &domain_desk_api::local::LocalInfo, extra: &[&str]| {
            let (args, api) = args(info, extra);
            doctor_options(&args, api.local_api, &ClientPool::new())
                .await
                .unwrap()
        };
        let options = options_for(&signed, &["--dnssec"]).await;
        assert!(options.dnssec);
        assert_eq!(options.trust_anchor.as_deref(), Some(anchor.as_str()));
        // time by the service's clock, with every flag given too
        assert!(options.clock.is_platform());
        let options = options_for(
            &signed,
            &["--target", "edge.example.net", "--ca", "ca.example"],
        )
        .await;
        assert!(options.clock.is_platform());
        // without --dnssec the anchor is not used
        let options = options_for(&signed, &[]).await;
        assert_eq!(options.trust_anchor, None);
        // a file given wins
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("mine.key");
        std::fs::write(&file, ". IN DNSKEY 257 3 13 AAAA\n").unwrap();
        let path = file.to_string_lossy().into_owned();
        let options = options_for(&signed, &["--trust-anchor", &path]).await;
        assert_eq!(
            options.trust_anchor.as_deref(),
            Some(". IN DNSKEY 257 3 13 AAAA\n")
        );
        let options = options_for(&unsigned, &["--dnssec"]).await;
        assert!(options.dnssec);
        assert_eq!(options.trust_anchor, None);
    }

    /// The window's Diagnose without an account and `domain-desk doctor` are one code path:
    /// for the same names and the same servers they give the same report (timings aside).
    #[tokio::test]
    async fn diagnose_without_an_account_answers_as_the_command_line_does() {
        let (info, _stop) = start_service(false).await;
        let dns = info.dns.clone().unwrap();
        let names = [
            "www.example.com",
            "nothing-here.example.org",
            "example.net",
            "not a hostname",
        ];
        // The command line, not pointed at any local service (its API is not on loopback).
        let mut flags = vec![
            "--resolver",
            dns.as_str(),
            "--target",
            info.platform_dns_target.as_str(),
            "--local-api",
            "192.0.2.1:9",
        ];
        flags.extend(names);
        let (args, api) = doctor_cli(&flags).unwrap();
        let cli = doctor_options(&args, api.local_api, &ClientPool::new())
            .await
            .unwrap();
        let settings = crate::settings::Settings {
            diagnose_resolvers: vec![dns.parse().unwrap()],
            diagnose_target: Some(info.platform_dns_target.clone()),
            ..crate::settings::Settings::default()
        };
        let window = crate::commands::diagnose::without_account(&settings, None);
        let without_timings = |report: domain_desk_doctor::Report| {
            let mut value = serde_json::to_value(report.hosts).unwrap();
            strip_timings(&mut value);
            value
        };
        let from_cli = without_timings(domain_desk_doctor::diagnose(&names, &cli).await.unwrap());
        let from_window =
            without_timings(domain_desk_doctor::diagnose(&names, &window).await.unwrap());
        assert_eq!(from_cli, from_window);
        assert_eq!(from_cli.as_array().map(Vec::len), Some(names.len()));
    }

    #[test]
    fn one_picture_goes_to_the_file_named_and_several_beside_it() {
        let file = Path::new("/tmp/out/path.svg");
        assert_eq!(
            picture_paths(file, &["www.example.com"]),
            [PathBuf::from("/tmp/out/path.svg")]
        );
        assert_eq!(
            picture_paths(
                file,
                &["www.example.com", "../../etc/passwd", "not a hostname"]
            ),
            [
                PathBuf::from("/tmp/out/path-www.example.com.svg"),
                PathBuf::from("/tmp/out/path-_.._etc_passwd.svg"),
                PathBuf::from("/tmp/out/path-not_a_hostname.svg"),
            ]
        );
        assert_eq!(
            picture_paths(Path::new("pictures"), &["a.example", "b.example"]),
            [
                PathBuf::from("pictures-a.example.svg"),
                PathBuf::from("pictures-b.example.svg")
            ]
        );
        let (args, _) = doctor_cli(&["--svg", "path.svg", "a.example"]).unwrap();
        assert_eq!(args.svg.as_deref(), Some(Path::new("path.svg")));
        // a replay draws its pictures too
        assert!(doctor_cli(&["--replay", "capture.json", "--svg", "path.svg"]).is_ok());
    }

    /// `doctor --svg` writes the picture of each name the run diagnosed, the window's drawing.
    #[tokio::test]
    async fn the_picture_of_each_name_is_written() {
        let (info, _stop) = start_service(false).await;
        let dns = info.dns.clone().unwrap();
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("path.svg");
        for names in [
            &["www.example.com"][..],
            &["www.example.com", "nothing-here.example.org"],
        ] {
            let mut flags = vec![
                "--resolver",
                dns.as_str(),
                "--target",
                info.platform_dns_target.as_str(),
                "--local-api",
                "192.0.2.1:9",
                "--no-tls",
            ];
            flags.extend(names);
            let (args, api) = doctor_cli(&flags).unwrap();
            let options = doctor_options(&args, api.local_api, &ClientPool::new())
                .await
                .unwrap();
            let report = domain_desk_doctor::diagnose(names, &options).await.unwrap();
            write_pictures(&report, &file).unwrap();
        }
        let one = std::fs::read_to_string(&file).unwrap();
        assert!(
            one.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{one}"
        );
        assert!(one.contains("The path a lookup of www.example.com takes"));
        assert!(one.contains("@media (prefers-color-scheme: dark)"));
        assert!(one.ends_with("</svg>"));
        let missing =
            std::fs::read_to_string(directory.path().join("path-nothing-here.example.org.svg"))
                .unwrap();
        assert!(missing.contains("no such name"), "{missing}");
        assert!(directory.path().join("path-www.example.com.svg").exists());
    }

    fn strip_timings(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.remove("elapsed_ms");
                map.values_mut().for_each(strip_timings);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip_timings),
            _ => {}
        }
    }
}

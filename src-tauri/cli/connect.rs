//! Which platform and key a command talks to: an account kept on this computer (the same
//! list as the window's, keys from the OS keyring), the local service with `--local`, or the
//! offline demo's accounts.

use std::net::SocketAddr;

use domain_desk_api::{Account, Plan};
use domain_desk_client::{Client, ClientPool, LocalControl};

use super::output::Failure;
use crate::settings::AccountMode;
use domain_desk_app::account_rules;
use domain_desk_app::accounts;
use domain_desk_app::accounts_file::AccountsFile;
use domain_desk_app::demo_service::{self, EmbeddedService};
use domain_desk_app::paths::AppPaths;
use domain_desk_app::secrets::{KeyStore, Keyring};

/// The flags of every command that talks to the platform, and `--json`: global, so they go
/// before the subcommand (`domain-desk --local domains list`) or after it.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Connection")]
pub struct ApiArgs {
    /// The account to use (see `domain-desk accounts`); default: the last one connected.
    #[arg(long, global = true, env = "DOMAIN_DESK_ACCOUNT", value_name = "ID")]
    pub account: Option<String>,
    /// Use the local service (`domain-desk serve`) with its demo key for --plan.
    #[arg(long, global = true, conflicts_with = "account")]
    pub local: bool,
    /// The local service's API address: with --local, and where `doctor --resolver` asks
    /// what the service says.
    #[arg(
        long,
        global = true,
        value_name = "ADDR",
        default_value = "127.0.0.1:8787"
    )]
    pub local_api: SocketAddr,
    /// The demo account's plan, with --local.
    #[arg(long, global = true, value_name = "PLAN", default_value = "pro",
          value_parser = ["free", "pro", "business", "enterprise"])]
    pub plan: String,
    /// Print JSON (the API's own shapes, the doctor's report) instead of tables and text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Do not wait for the rate limit: exit with status 4 when a request would have to wait.
    #[arg(long, global = true)]
    pub no_wait: bool,
}

/// A client on the chosen account, and what else the command may need to know.
pub struct Connection {
    pub client: Client,
    pub account: Account,
    /// Platform seconds per local second (the local service may run its clock fast).
    pub clock_speed: f64,
    /// The local service's DNS server, which Domain Connect discovery asks in the demo
    /// (`None`: the system's resolvers).
    pub dns_server: Option<SocketAddr>,
    /// The local service's control plane (its DNS, its clock), when the account is there.
    pub local: Option<LocalControl>,
    /// Keeps a demo service started for this command running until the command ends.
    _service: Option<EmbeddedService>,
}

fn plan_named(name: &str) -> Plan {
    Plan::ALL
        .into_iter()
        .find(|p| p.as_str() == name)
        .unwrap_or(Plan::Pro)
}

/// The request queues of this process, sharing each key's budget with the window and other
/// commands on this computer (through the data folder).
pub fn shared_pool() -> ClientPool {
    match AppPaths::from_os() {
        Ok(paths) => ClientPool::with_data_dir(paths.queue_dir()),
        // Not reached: `cli::run` refuses to start without the user's folders.
        Err(_) => ClientPool::new(),
    }
}

/// Opens the account `args` names.
pub async fn connect(args: &ApiArgs, pool: &ClientPool) -> Result<Connection, Failure> {
    if args.local {
        let base_url = format!("http://{}", args.local_api);
        return local(pool, &base_url, plan_named(&args.plan), None, args.no_wait).await;
    }
    let paths = AppPaths::from_os()?;
    let file = AccountsFile::open(&paths.data_dir)?;
    let id = match &args.account {
        Some(id) => id.clone(),
        None => file.settings()?.last_account.ok_or_else(|| {
            Failure::auth(
                "No account yet: run `domain-desk login --base-url URL`, or use --local with `domain-desk serve` running.",
            )
        })?,
    };
    if let Some(plan) = account_rules::plan_of(&id) {
        let service = demo_service::start_embedded(&paths).await?;
        let base_url = service.base_url().to_owned();
        return local(pool, &base_url, plan, Some(service), args.no_wait).await;
    }
    let entry = file
        .accounts()?
        .into_iter()
        .find(|e| e.id == id)
        .ok_or_else(|| {
            Failure::auth(format!(
                "No account {} is kept here; `domain-desk accounts` lists them.",
                super::output::inert(&id)
            ))
        })?;
    if entry.mode != AccountMode::Connected {
        return Err(Failure::usage("That account has no key to use."));
    }
    KeyStore::install();
    let client = accounts::kept_client(pool, &Keyring, &entry, None)?;
    if args.no_wait {
        // Reading the account is a request too.
        can_send_now(&client, 1.0, 1).await?;
    }
    let account = client.account().await?;
    Ok(Connection {
        client,
        account,
        clock_speed: 1.0,
        dns_server: None,
        local: None,
        _service: None,
    })
}

/// The local service at `base_url` with its demo key for `plan`, pacing by its clock.
async fn local(
    pool: &ClientPool,
    base_url: &str,
    plan: Plan,
    service: Option<EmbeddedService>,
    no_wait: bool,
) -> Result<Connection, Failure> {
    let control = LocalControl::new(base_url)?;
    let info = control.info().await.map_err(|err| {
        Failure::check(format!(
            "The local service at {base_url} does not answer ({err}); start it with `domain-desk serve`."
        ))
    })?;
    let clock = control.clock().await?;
    let speed = account_rules::pacing_speed(clock.speed);
    let client = accounts::demo_client(pool, base_url, &info, plan, clock.speed)?;
    if no_wait {
        can_send_now(&client, speed, 1).await?;
    }
    let account = client.account().await?;
    Ok(Connection {
        client,
        account,
        clock_speed: speed,
        dns_server: info.dns.as_deref().and_then(|dns| dns.parse().ok()),
        local: Some(control),
        _service: service,
    })
}

/// With `--no-wait`: fails with status 4 unless `requests` can be sent now without waiting
/// for a window (asks `GET /v1/rate_limit`, which the platform does not count).
pub async fn refuse_to_wait(
    connection: &Connection,
    requests: u64,
    no_wait: bool,
) -> Result<(), Failure> {
    if !no_wait {
        return Ok(());
    }
    can_send_now(&connection.client, connection.clock_speed, requests).await
}

async fn can_send_now(client: &Client, clock_speed: f64, requests: u64) -> Result<(), Failure> {
    let status = client.rate_limit().await?;
    if let Some(ban) = &status.banned_until {
        return Err(Failure::rate_limited(format!(
            "The key is banned until {ban}."
        )));
    }
    let wait = client.wait_for(requests, chrono::Utc::now(), clock_speed);
    if wait > std::time::Duration::ZERO {
        return Err(Failure::rate_limited(format!(
            "{requests} request(s) would wait {} for the rate limit (--no-wait).",
            super::output::duration(wait)
        )));
    }
    Ok(())
}

impl Connection {
    /// Domain Connect discovery as this connection's platform sees DNS.
    pub fn domain_connect(
        &self,
    ) -> Result<domain_desk_client::domain_connect::DomainConnect, Failure> {
        // Only the local service's accounts (the demo's) have its DNS server: its own
        // provider on loopback is theirs to use.
        Ok(domain_desk_app::auto_setup::discovery(self.dns_server)?)
    }
}

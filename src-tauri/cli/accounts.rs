//! `domain-desk login`, `logout` and `accounts`: the accounts kept on this computer, shared
//! with the window (keys in the OS keyring, the list in the window's settings file).

use std::io::IsTerminal;

use domain_desk_client::{ApiKey, ClientPool};

use super::output::{Failure, Outcome, inert, print_json, table};
use domain_desk_app::account_rules;
use domain_desk_app::accounts::{self, SignedIn};
use domain_desk_app::accounts_file::AccountsFile;
use domain_desk_app::paths::AppPaths;
use domain_desk_app::secrets::{KeyStore, Keyring};

#[derive(Debug, clap::Args)]
pub struct LoginArgs {
    /// The platform's API base URL, such as https://api.example.com.
    #[arg(long, value_name = "URL", env = "DOMAIN_DESK_BASE_URL")]
    pub base_url: String,
    /// Read the API key from standard input (one line) instead of asking for it. The key is
    /// never taken as an argument, where it would stay in the shell's history.
    #[arg(long)]
    pub key_stdin: bool,
}

fn read_key(from_stdin: bool) -> Result<ApiKey, Failure> {
    let key = if from_stdin || !std::io::stdin().is_terminal() {
        let mut line = String::new();
        std::io::stdin()
            .read_line(&mut line)
            .map_err(|err| Failure::usage(format!("cannot read the key: {err}")))?;
        line
    } else {
        rpassword::prompt_password("API key: ")
            .map_err(|err| Failure::usage(format!("cannot read the key: {err}")))?
    };
    let key = ApiKey::new(key.trim());
    if key.is_empty() {
        return Err(Failure::usage("No API key was given."));
    }
    Ok(key)
}

/// Checks the key against the platform, then keeps it in the keyring and the account in the
/// list: the application layer's sign-in, which the window's Connect runs too.
pub async fn login(args: LoginArgs, json: bool) -> Outcome {
    // Read before the key is asked for: a bad URL or folder fails without it.
    account_rules::normalise_base_url(&args.base_url)?;
    let paths = AppPaths::from_os()?;
    let mut file = AccountsFile::open(&paths.data_dir)?;
    let key = read_key(args.key_stdin)?;
    let pool = ClientPool::with_data_dir(paths.queue_dir());
    KeyStore::install();
    let SignedIn { entry, account, .. } =
        accounts::sign_in(&pool, &mut file, &Keyring, &args.base_url, key).await?;
    if json {
        return print_json(&serde_json::json!({ "account_id": entry.id, "account": account }));
    }
    println!(
        "Signed in as {} ({} plan). This is now the default account: {}",
        inert(&account.name),
        account.plan.as_str(),
        entry.id
    );
    Ok(())
}

/// Forgets an account and deletes its key from the keyring.
pub fn logout(id: &str) -> Outcome {
    let paths = AppPaths::from_os()?;
    let mut file = AccountsFile::open(&paths.data_dir)?;
    KeyStore::install();
    let removed = accounts::forget(&mut file, &Keyring, id)?;
    if removed {
        println!("Forgot {id} and deleted its key.");
        Ok(())
    } else {
        Err(Failure::usage(format!(
            "No account {} is kept here.",
            inert(id)
        )))
    }
}

pub fn list(json: bool) -> Outcome {
    let paths = AppPaths::from_os()?;
    let file = AccountsFile::open(&paths.data_dir)?;
    let accounts = file.accounts()?;
    let default = file.settings()?.last_account;
    if json {
        return print_json(&serde_json::json!({ "accounts": accounts, "default": default }));
    }
    if accounts.is_empty() {
        println!(
            "No accounts yet: `domain-desk login --base-url URL`, or --local with `domain-desk serve`."
        );
        return Ok(());
    }
    let rows: Vec<Vec<String>> = accounts
        .iter()
        .map(|a| {
            vec![
                if default.as_deref() == Some(a.id.as_str()) {
                    "*".into()
                } else {
                    String::new()
                },
                inert(&a.id),
                inert(&a.label),
                inert(if a.base_url.is_empty() {
                    "(offline demo)"
                } else {
                    &a.base_url
                }),
            ]
        })
        .collect();
    print!("{}", table(&["", "ID", "ACCOUNT", "BASE URL"], &rows));
    Ok(())
}

//! The reliability checks that need more than `cargo test`: the API contract fuzzed by
//! schemathesis against the real `domain-desk serve`, then a bounded run of every cargo-fuzz
//! target (`crate::fuzz`). The Rust-level reliability tests (limiter exactness across windows,
//! crash safety, DNS robustness, the client under faults) run in `cargo test` with the rest.
//!
//! Everything listens on loopback ports the system picks, so it runs beside anything else.
//! The tools are installed here when missing: schemathesis (pinned) in a virtual environment
//! under `target/reliability/`. Reports land in `target/reliability/`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

use crate::steps::{exe, root, step};

/// The schemathesis release the contract checks were written against.
const SCHEMATHESIS_VERSION: &str = "4.32.5";

/// Every check that compares an answer with the document: no 5xx, a documented status, a body
/// matching the documented schema, the documented headers present and well-formed, and the
/// documented content type; then what the service must refuse (input outside the schema, a
/// missing required header, an undocumented method, no or a wrong key where one is needed) and
/// what must stay consistent (a deleted resource is gone, a created one can be read).
const CHECKS: &str = "not_a_server_error,status_code_conformance,response_schema_conformance,\
response_headers_conformance,content_type_conformance,negative_data_rejection,\
missing_required_header,unsupported_method,ignored_auth,use_after_free,\
ensure_resource_availability";

/// Fixed so that a failure in CI reproduces locally with the same inputs.
const SEED: &str = "20260302";

/// The control-plane operations that change the whole service (faults make `/v1` answer 503
/// on purpose, the clock and reset move every window): fuzzed alone, on their own service.
const CONTROL_PLANE: &str = r"^/_local/(faults|clock|clock/advance|reset)$";

pub fn run() -> Result<()> {
    contract()?;
    crate::fuzz::run(crate::fuzz::FuzzMode::Regression)
}

fn work_dir() -> PathBuf {
    root().join("target/reliability")
}

/// schemathesis against `/openapi.json` in four passes, each on a fresh in-memory service.
pub fn contract() -> Result<()> {
    crate::steps::build_app("build the app (for `domain-desk serve`)")?;
    let schemathesis = ensure_schemathesis()?;

    // 1. Every operation but the control plane, with the Enterprise key so the limit does not
    //    get in the way; the stateful phase follows the document's links (create a project,
    //    deploy it, add a domain, ...).
    {
        let service = LocalService::start("enterprise")?;
        let key = service.demo_key("enterprise")?;
        let mut cmd = schemathesis.run(&service, &key, "enterprise", 150);
        cmd.args(["--exclude-path-regex", CONTROL_PLANE]);
        step("contract: every operation, Enterprise key", &mut cmd)?;
    }

    // 2. The operations under one project with a successful deploy and domains attached, so
    //    the generated bodies reach the domain logic instead of stopping at 404.
    {
        let service = LocalService::start("domains")?;
        let key = service.demo_key("enterprise")?;
        let project = service.deployed_project(&key)?;
        for body in [
            json!({"hostname": "fuzz.example.com"}),
            json!({"hostname": "old.example.com", "redirect_to": "fuzz.example.com"}),
        ] {
            service.expect(
                "POST",
                &format!("/v1/projects/{project}/domains"),
                Some(&key),
                Some(&body),
                201,
            )?;
        }
        let config = work_dir().join("domains/schemathesis.toml");
        std::fs::write(
            &config,
            format!(
                "[parameters]\n\"path.project_id\" = \"{project}\"\n\"path.hostname\" = \"fuzz.example.com\"\n"
            ),
        )?;
        let mut cmd = schemathesis.run_with_config(&config, &service, &key, "domains", 150);
        cmd.args(["--include-path-regex", r"^/v1/projects/\{project_id\}/"]);
        step(
            "contract: a deployed project's domains, Enterprise key",
            &mut cmd,
        )?;
    }

    // 3. The Free key at real speed: most answers are 429 and then 403 key_banned, and every
    //    one of them must still be documented, headers included.
    {
        let service = LocalService::start("free")?;
        let key = service.demo_key("free")?;
        let mut cmd = schemathesis.run(&service, &key, "free", 25);
        cmd.args(["--include-path-regex", "^/v1/"]);
        step("contract: every /v1 operation, Free key", &mut cmd)?;
    }

    // 4. The control plane alone: faults, clock and reset with generated bodies.
    {
        let service = LocalService::start("control")?;
        let key = service.demo_key("enterprise")?;
        let mut cmd = schemathesis.run(&service, &key, "control", 100);
        cmd.args(["--include-path-regex", CONTROL_PLANE]);
        step("contract: the control plane", &mut cmd)?;
    }
    Ok(())
}

/// A short run of every fuzz target, with sanitizers, on the stable toolchain. Prints how many
/// inputs each target ran; in regression mode a target that ran fewer than
/// [`REGRESSION_RUNS`] (the time guard stopped it first) fails the check.
/// How to start the pinned schemathesis.
struct Schemathesis {
    /// The interpreter it is installed for.
    python: PathBuf,
    /// Set when it was installed with `pip --target` (no venv module on this machine).
    python_path: Option<PathBuf>,
}

/// Starts schemathesis's command line with Python's `ast.parse` made one-at-a-time.
///
/// Hypothesis parses source files to describe lambdas, and schemathesis runs two workers
/// (threads). Python 3.11 keeps the AST converter's recursion depth in state shared by every
/// thread (CPython gh-106905, fixed in 3.12); when the interpreter switches threads in the
/// middle of one parse (a garbage collection running Python code, say), the other thread's
/// parse moves the same counter and the first one ends in `SystemError: AST constructor
/// recursion depth mismatch`. The run then ends in a "Runtime Error" of the tool, not a
/// finding about the API: seen twice in CI on 2026-11-26 in the Free key's pass, with every
/// generated case passing. A lock around `ast.parse` keeps two parses from overlapping; the
/// test `the_launch_keeps_two_threads_from_parsing_at_once` makes the race happen on purpose.
/// The deeper recursion limit is for one deep parse on its own.
fn schemathesis_launch() -> String {
    format!("{SERIAL_AST_PARSE}{SCHEMATHESIS_CLI}")
}

/// schemathesis's command line with room for one deep parse (Python source).
const SCHEMATHESIS_CLI: &str = "import sys
sys.setrecursionlimit(20000)
from schemathesis.cli import schemathesis
sys.argv[0] = 'schemathesis'
sys.exit(schemathesis())
";

/// Replaces `ast.parse` with the same function behind one lock (Python source).
const SERIAL_AST_PARSE: &str = "import ast, threading
_parse, _parse_lock = ast.parse, threading.RLock()
def _serial_parse(*args, **kwargs):
    with _parse_lock:
        return _parse(*args, **kwargs)
ast.parse = _serial_parse
";

impl Schemathesis {
    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.python);
        if let Some(path) = &self.python_path {
            cmd.env("PYTHONPATH", path);
        }
        cmd.arg("-c").arg(schemathesis_launch());
        // No telemetry, no colour codes in CI logs, no cache of examples between runs.
        cmd.env("SCHEMATHESIS_TELEMETRY", "false")
            .env("NO_COLOR", "1");
        cmd
    }

    fn run(&self, service: &LocalService, key: &str, pass: &str, examples: u32) -> Command {
        self.build(None, service, key, pass, examples)
    }

    fn run_with_config(
        &self,
        config: &Path,
        service: &LocalService,
        key: &str,
        pass: &str,
        examples: u32,
    ) -> Command {
        self.build(Some(config), service, key, pass, examples)
    }

    fn build(
        &self,
        config: Option<&Path>,
        service: &LocalService,
        key: &str,
        pass: &str,
        examples: u32,
    ) -> Command {
        let mut cmd = self.command();
        if let Some(config) = config {
            cmd.arg("--config-file").arg(config);
        }
        let reports = work_dir().join(pass);
        // Its cache folder (`.schemathesis/`) lands beside the reports, not in the tree.
        cmd.current_dir(&reports);
        cmd.arg("run")
            .arg(format!("{}/openapi.json", service.base_url))
            .args(["--checks", CHECKS])
            .args(["--max-examples", &examples.to_string()])
            .args(["--seed", SEED])
            .args(["--generation-database", "none"])
            .args(["--request-timeout", "10"])
            .args(["--workers", "2"])
            .arg("--no-color")
            .args(["--report", "junit"])
            .arg("--report-dir")
            .arg(&reports)
            .args(["--header", &format!("Authorization: Bearer {key}")]);
        cmd
    }
}

/// schemathesis at the pinned version, installed when missing (as [`ensure_schemathesis`]).
pub fn install_schemathesis() -> Result<()> {
    ensure_schemathesis().map(drop)
}

/// schemathesis at the pinned version in `target/reliability/venv`, installed when missing.
fn ensure_schemathesis() -> Result<Schemathesis> {
    let base = work_dir();
    std::fs::create_dir_all(&base)?;
    let venv = base.join("venv");
    let venv_python = venv.join("bin/python");
    let target = base.join("site-packages");
    let pinned = format!("schemathesis=={SCHEMATHESIS_VERSION}");

    let has_pinned = |tool: &Schemathesis| {
        tool.command()
            .arg("--version")
            .output()
            .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains(SCHEMATHESIS_VERSION))
    };
    let in_venv = Schemathesis {
        python: venv_python.clone(),
        python_path: None,
    };
    if venv_python.exists() && has_pinned(&in_venv) {
        return Ok(in_venv);
    }
    let in_target = Schemathesis {
        python: PathBuf::from("python3"),
        python_path: Some(target.clone()),
    };
    if target.join("schemathesis").is_dir() && has_pinned(&in_target) {
        return Ok(in_target);
    }

    // A venv that does not answer (moved, or half-made) is made anew: its scripts name the
    // interpreter by absolute path, and pip would call the old install satisfied.
    let _ = std::fs::remove_dir_all(&venv);
    let venv_made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .is_ok_and(|s| s.success());
    if venv_made {
        step(
            &format!("install {pinned}"),
            Command::new(venv.join("bin/python"))
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .arg(&pinned),
        )?;
        return Ok(in_venv);
    }
    // Debian without python3-venv (`cargo xtask test` installs it; a bare `cargo xtask
    // reliability` may not have it): a half-made venv goes, pip installs into a folder.
    let _ = std::fs::remove_dir_all(&venv);
    step(
        &format!("install {pinned} (no venv module: into target/reliability)"),
        Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .arg("--target")
            .arg(&target)
            .arg(&pinned),
    )?;
    if !has_pinned(&in_target) {
        bail!("schemathesis {SCHEMATHESIS_VERSION} did not install");
    }
    Ok(in_target)
}

/// `domain-desk serve --memory` on loopback ports the system picks; killed when dropped.
struct LocalService {
    _process: domain_desk_test_support::Served,
    api: SocketAddr,
    base_url: String,
    log: PathBuf,
}

impl LocalService {
    fn start(name: &str) -> Result<Self> {
        let binary = root().join("target/debug").join(exe("domain-desk"));
        let dir = work_dir().join(name);
        std::fs::create_dir_all(&dir)?;
        let log = dir.join("service.log");
        let process = domain_desk_test_support::Served::start(
            Command::new(&binary)
                .args(["serve", "--memory"])
                .args(domain_desk_test_support::LOOPBACK_ARGS)
                .stderr(std::fs::File::create(&log)?),
        )
        .with_context(|| format!("{} did not start; see {}", binary.display(), log.display()))?;
        let api = process.api();
        Ok(Self {
            _process: process,
            api,
            base_url: format!("http://{api}"),
            log,
        })
    }

    fn demo_key(&self, plan: &str) -> Result<String> {
        let info = self.expect("GET", "/_local/info", None, None, 200)?;
        info["demo_keys"][plan]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| anyhow!("no {plan} demo key in /_local/info"))
    }

    /// The seeded project of `key`'s account that has a successful deploy.
    fn deployed_project(&self, key: &str) -> Result<String> {
        let list = self.expect("GET", "/v1/projects", Some(key), None, 200)?;
        list["projects"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["last_deploy"]["status"] == "succeeded")
            .and_then(|p| p["id"].as_str())
            .map(str::to_owned)
            .ok_or_else(|| anyhow!("no seeded project with a successful deploy"))
    }

    /// One request over plain HTTP/1.1; fails unless the answer has status `want`.
    fn expect(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<&Value>,
        want: u16,
    ) -> Result<Value> {
        let (status, answer) = crate::http::exchange(self.api, method, path, key, body)
            .with_context(|| format!("{method} {path}; service log: {}", self.log.display()))?;
        if status != want {
            bail!("{method} {path}: expected {want}, got {status}: {answer}");
        }
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four threads parse while every garbage collection hands the interpreter to another
    /// thread, which is what makes Python 3.11's shared recursion counter go wrong. Without
    /// [`SERIAL_AST_PARSE`] this fails on Python 3.11 (it prints the `SystemError`); on 3.12
    /// and later, where CPython fixed the counter, it passes either way.
    #[test]
    fn the_launch_keeps_two_threads_from_parsing_at_once() {
        const RACE: &str = "import ast, gc, threading, time
gc.callbacks.append(lambda phase, info: time.sleep(0))
source = 'x = ' + '(' * 50 + 'lambda a: a + 1' + ')' * 50 + '\\n' + '\\n'.join(
    f'def f{i}(a, b=[1, 2, {{3: 4}}]):\\n    return [a for a in range({i}) if a]'
    for i in range(100))
errors = []
def work():
    for _ in range(100):
        try:
            ast.parse(source)
        except SystemError as error:
            errors.append(str(error))
            return
threads = [threading.Thread(target=work) for _ in range(4)]
for thread in threads: thread.start()
for thread in threads: thread.join()
if errors:
    raise SystemExit('parse failed: ' + errors[0])
";
        let python = if cfg!(windows) { "python" } else { "python3" };
        let Ok(output) = Command::new(python)
            .args(["-c", &format!("{SERIAL_AST_PARSE}{RACE}")])
            .output()
        else {
            eprintln!("no {python} here: the launch's Python is not checked");
            return;
        };
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

//! `domain-desk serve`, the real binary, as a child process: started in its own process
//! group with its standard output piped, its banner read for the addresses and demo keys,
//! and the whole group killed when the handle is dropped (a shell that `exec`s the service,
//! or anything the service starts, goes with it).

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, ChildStderr, Command, Stdio};

/// The arguments that put the API, the DNS server and both edge listeners on loopback ports
/// the OS picks; add them after `serve`.
pub const LOOPBACK_ARGS: [&str; 8] = [
    "--api",
    "127.0.0.1:0",
    "--dns",
    "127.0.0.1:0",
    "--edge-https",
    "127.0.0.1:0",
    "--edge-http",
    "127.0.0.1:0",
];

/// What `domain-desk serve` prints when it is ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Banner {
    /// The HTTP API's address.
    pub api: SocketAddr,
    /// `host:port` of the DNS server, or `None` when it does not run.
    pub dns: Option<String>,
    pub edge_https: Option<String>,
    pub edge_http: Option<String>,
    /// Plan name → API key.
    pub demo_keys: BTreeMap<String, String>,
}

impl Banner {
    /// Reads banner lines up to the last one (`Ctrl-C stops.`) or the end of the output.
    ///
    /// # Errors
    /// When the output ends before the API's address, or that address does not parse.
    pub fn read(lines: impl IntoIterator<Item = io::Result<String>>) -> io::Result<Banner> {
        let mut api = None;
        let (mut dns, mut edge_https, mut edge_http) = (None, None, None);
        let mut demo_keys = BTreeMap::new();
        let mut in_keys = false;
        for line in lines {
            let line = line?;
            let text = line.trim();
            if text == "Ctrl-C stops." {
                break;
            }
            if text == "demo API keys:" {
                in_keys = true;
                continue;
            }
            if in_keys {
                if let Some((plan, key)) = text.split_once(char::is_whitespace) {
                    demo_keys.insert(plan.to_owned(), key.trim().to_owned());
                }
                continue;
            }
            let address = |value: &str| {
                let value = value.trim();
                (value != "not running").then(|| value.to_owned())
            };
            if let Some(value) = text.strip_prefix("edge https") {
                edge_https = address(value);
            } else if let Some(value) = text.strip_prefix("edge http") {
                edge_http = address(value);
            } else if let Some(value) = text.strip_prefix("dns") {
                dns = address(value);
            } else if let Some(value) = text.strip_prefix("api") {
                let value = value.trim();
                let value = value.strip_prefix("http://").unwrap_or(value);
                api = Some(value.parse::<SocketAddr>().map_err(|err| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("unexpected api line {line:?}: {err}"),
                    )
                })?);
            }
        }
        let api = api.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the service exited before printing its address",
            )
        })?;
        Ok(Banner {
            api,
            dns,
            edge_https,
            edge_http,
            demo_keys,
        })
    }
}

/// One running `domain-desk serve`; its process group is killed (SIGKILL) when dropped.
#[derive(Debug)]
pub struct Served {
    child: Child,
    banner: Banner,
}

impl Served {
    /// Spawns `command` (the binary with `serve` and its flags, or a shell that `exec`s it)
    /// in a process group of its own, with standard input closed and standard output piped,
    /// and reads the banner. The rest of the output is drained on a thread so the service
    /// never blocks on a full pipe. Standard error is the caller's to set.
    ///
    /// # Errors
    /// When the process does not start, or exits before printing its API address (it is
    /// killed then).
    pub fn start(command: &mut Command) -> io::Result<Served> {
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(command, 0);
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()?;
        let Some(stdout) = child.stdout.take() else {
            return Err(io::Error::other("standard output is not piped"));
        };
        let mut lines = BufReader::new(stdout).lines();
        let banner = Banner::read(lines.by_ref());
        std::thread::spawn(move || for _ in lines {});
        match banner {
            Ok(banner) => Ok(Served { child, banner }),
            Err(err) => {
                kill(&mut child);
                Err(err)
            }
        }
    }

    pub fn banner(&self) -> &Banner {
        &self.banner
    }

    /// The HTTP API's address.
    pub fn api(&self) -> SocketAddr {
        self.banner.api
    }

    /// `http://` and the API's address.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.banner.api)
    }

    /// The demo account's API key on `plan` (`free`, `pro`, `business`, `enterprise`).
    pub fn demo_key(&self, plan: &str) -> Option<&str> {
        self.banner.demo_keys.get(plan).map(String::as_str)
    }

    /// The service's process id (also its process group's).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The service's standard error, when the command piped it; taken once.
    pub fn take_stderr(&mut self) -> Option<ChildStderr> {
        self.child.stderr.take()
    }

    /// `kill -9` of the process group: no shutdown, no flush; returns once it is reaped.
    pub fn kill(mut self) {
        kill(&mut self.child);
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        kill(&mut self.child);
    }
}

/// SIGKILL to the child's process group (by its own id), then to the child, and reaps it.
fn kill(child: &mut Child) {
    #[cfg(unix)]
    {
        // `--` before the negative group id: procps kill otherwise reads `-<pid>` as options.
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{}", child.id())])
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<io::Result<String>> {
        text.lines().map(|line| Ok(line.to_owned())).collect()
    }

    #[test]
    fn the_banner_gives_addresses_and_demo_keys() {
        let banner = Banner::read(lines(
            "Domain Desk local platform
  data        in memory (gone when stopped)
  api         http://127.0.0.1:4100
  dns         127.0.0.1:4101
  edge https  127.0.0.1:4102
  edge http   not running
  platform    example.app (DNS target edge.example.app)
demo API keys:
  free        key-free
  enterprise  key-enterprise
Ctrl-C stops.
after the banner",
        ))
        .unwrap();
        assert_eq!(banner.api, SocketAddr::from(([127, 0, 0, 1], 4100)));
        assert_eq!(banner.dns.as_deref(), Some("127.0.0.1:4101"));
        assert_eq!(banner.edge_https.as_deref(), Some("127.0.0.1:4102"));
        assert_eq!(banner.edge_http, None);
        assert_eq!(banner.demo_keys["free"], "key-free");
        assert_eq!(banner.demo_keys["enterprise"], "key-enterprise");
        assert_eq!(banner.demo_keys.len(), 2);
    }

    #[test]
    fn output_that_ends_before_the_api_line_is_an_error() {
        let err = Banner::read(lines("Domain Desk local platform\n  data  x\n")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_process_that_prints_no_banner_is_reported_and_reaped() {
        #[cfg(unix)]
        {
            let err = Served::start(Command::new("sh").args(["-c", "echo hello"])).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        }
    }
}

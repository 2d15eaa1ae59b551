//! What `/proc` says of the app's processes: which belong to it, when each started, what
//! memory they hold (RSS and PSS from `smaps_rollup`), and the machine's load.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The processes that make up the running app: the app itself (`app_comm`, see [`comm_of`])
/// and the WebKit processes it starts (not the WebDriver that drives it).
pub(super) fn is_app_process(comm: &str, app_comm: &str) -> bool {
    comm == app_comm || (comm.starts_with("WebKit") && !comm.starts_with("WebKitWebDriver"))
}

/// The command name Linux gives a process started from `binary`: its file name, cut to 15
/// bytes. `BENCH_APP_BINARY` may name a copy called anything, so the app is found by this
/// name and not by "domain-desk".
pub(super) fn comm_of(binary: &Path) -> String {
    let name = binary
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.bytes().take(15).map(char::from).collect()
}

/// Every process below `ancestor` (not itself): pid, command name and start time in clock
/// ticks since boot (`/proc/<pid>/stat`, field 22).
pub(super) fn processes_below(ancestor: u32) -> Result<Vec<(u32, String, u64)>> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // the command name is in parentheses and may hold spaces; the parent follows the state
        let Some((_, after)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        let ppid = fields.get(1).and_then(|p| p.parse::<u32>().ok());
        // field 22 of the line, the 20th after the command name
        let start = fields
            .get(19)
            .and_then(|t| t.parse::<u64>().ok())
            .unwrap_or(0);
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if let Some(ppid) = ppid {
            parents.push((pid, ppid, comm.trim().to_owned(), start));
        }
    }
    let mut below = vec![ancestor];
    let mut changed = true;
    while changed {
        changed = false;
        for (pid, ppid, _, _) in &parents {
            if below.contains(ppid) && !below.contains(pid) {
                below.push(*pid);
                changed = true;
            }
        }
    }
    Ok(parents
        .into_iter()
        .filter(|(pid, ..)| *pid != ancestor && below.contains(pid))
        .map(|(pid, _, comm, start)| (pid, comm, start))
        .collect())
}

/// Seconds since boot, the clock of the processes' start times (`/proc/uptime`, 10 ms steps).
pub(super) fn uptime_seconds() -> Result<f64> {
    let text = std::fs::read_to_string("/proc/uptime")?;
    text.split_whitespace()
        .next()
        .and_then(|s| s.parse().ok())
        .context("unreadable /proc/uptime")
}

/// Clock ticks per second of `/proc/<pid>/stat`'s start times.
pub(super) fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|out| String::from_utf8_lossy(&out.stdout).trim().parse().ok())
        .unwrap_or(100.0)
}

/// When the newest process below `ancestor` whose name starts with `prefix` started, in
/// seconds since boot.
pub(super) fn newest_start(ancestor: u32, prefix: &str) -> Option<f64> {
    let ticks = clock_ticks();
    processes_below(ancestor)
        .ok()?
        .into_iter()
        .filter(|(_, comm, _)| comm.starts_with(prefix))
        .map(|(_, _, start)| start as f64 / ticks)
        .max_by(f64::total_cmp)
}

/// The 1-minute load average now.
pub(super) fn load_now() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

/// KiB as MB (10^6 bytes), the one unit the memory figures are printed in.
pub(super) fn mb(kib: u64) -> f64 {
    kib as f64 * 1024.0 / 1e6
}

/// RSS and PSS in KiB, summed over every process of the app below `ancestor` (the app's own
/// and all of WebKit's: web, network and GPU processes), and their names.
pub(super) fn app_memory(ancestor: u32, app_comm: &str) -> Result<(u64, u64, Vec<String>)> {
    let (mut rss, mut pss, mut names) = (0, 0, Vec::new());
    let mut app_seen = false;
    for (pid, comm, _) in processes_below(ancestor)? {
        if !is_app_process(&comm, app_comm) {
            continue;
        }
        app_seen |= comm == app_comm;
        let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
            .with_context(|| format!("reading the memory of {comm} ({pid})"))?;
        let field = |name: &str| {
            rollup
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .unwrap_or(0)
        };
        println!(
            "      {comm} ({pid}): RSS {:.0} MB, PSS {:.0} MB",
            mb(field("Rss:")),
            mb(field("Pss:"))
        );
        rss += field("Rss:");
        pss += field("Pss:");
        names.push(comm);
    }
    if !app_seen {
        bail!("the app's own process ({app_comm}) was not found below the driver");
    }
    names.sort();
    Ok((rss, pss, names))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_app_and_its_webkit_processes_count() {
        let app = comm_of(Path::new("/tmp/domain-desk-before-the-change"));
        assert_eq!(app, "domain-desk-bef");
        assert!(is_app_process("domain-desk-bef", &app));
        assert!(!is_app_process("domain-desk", &app));
        assert!(is_app_process("WebKitWebProces", &app));
        assert!(is_app_process("WebKitNetworkPr", &app));
        assert!(!is_app_process("WebKitWebDriver", &app));
        assert!(!is_app_process("tauri-driver", &app));
    }
}

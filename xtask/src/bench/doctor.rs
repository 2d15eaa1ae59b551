//! The doctor against `dig -f`, `adnshost` and the DNS server's `dnsperf` ceiling: runs the
//! `doctor_bench` example and reads its lines.

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::processes::env_number;
use super::report::{Table, goal};
use super::tools::ensure_apt;
use crate::steps::cargo;

pub(super) fn doctor(table: &mut Table) -> Result<()> {
    ensure_apt(&["dnsutils", "adns-tools", "dnsperf"])?;
    let hosts: usize = env_number("BENCH_DOCTOR_HOSTS", 1_000);
    println!(
        "\n==> doctor against dig -f, adnshost and the server's dnsperf ceiling ({hosts} hostnames)"
    );
    // BENCH_DOCTOR_BINARY: a doctor_bench build of one's own (to compare two builds, or to run
    // beside a cargo build that holds the target directory's lock)
    let mut command = match std::env::var_os("BENCH_DOCTOR_BINARY") {
        Some(binary) => std::process::Command::new(binary),
        None => {
            let mut cargo = cargo();
            cargo
                .args(["run", "--release", "--package", "domain-desk-doctor"])
                .args(["--example", "doctor_bench", "--"]);
            cargo
        }
    };
    // Bounded: a hung run (an adnshost that never answers) is stopped, and the kernel
    // setting it raised is put back by the caller's guard.
    let limit = Duration::from_secs(env_number("BENCH_DOCTOR_TIMEOUT", 1_200));
    let mut child = command
        .args([&hosts.to_string(), "21"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("could not run the doctor benchmark")?;
    let mut stdout = child.stdout.take().context("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "the doctor benchmark took over {} s and was stopped (BENCH_DOCTOR_TIMEOUT)",
                limit.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let text = reader
        .join()
        .map_err(|_| anyhow::anyhow!("the reader of the doctor benchmark panicked"))??;
    print!("{text}");
    if !status.success() {
        bail!("the doctor benchmark failed ({status})");
    }
    for row in doctor_rows(&text)? {
        table.add(row.0, &row.1, row.2, row.3);
    }
    Ok(())
}

/// A median win over the closest peer by less than this is reported as level: the medians of
/// fifteen runs on this machine move by a few percent between identical runs.
const LEVEL_MARGIN_PERCENT: f64 = 5.0;

/// A duration as Rust's `Debug` prints it ("1.234s", "812.5ms", "878.457µs", "950ns"), in
/// seconds.
fn duration_seconds(token: &str) -> Option<f64> {
    let units = [
        ("ns", 1e-9),
        ("µs", 1e-6),
        ("us", 1e-6),
        ("ms", 1e-3),
        ("s", 1.0),
    ];
    units.iter().find_map(|(unit, scale)| {
        let number: f64 = token.strip_suffix(unit)?.parse().ok()?;
        Some(number * scale)
    })
}

/// The doctor benchmark's rows, from what `doctor_bench` printed: (part, subject, figure,
/// goal or ratio).
fn doctor_rows(text: &str) -> Result<Vec<(&'static str, String, String, String)>> {
    let line = |prefix: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(prefix))
            .map(|rest| rest.trim().to_owned())
            .with_context(|| format!("the doctor benchmark printed no `{prefix}` line"))
    };
    // The last "… in 1.234s", "… in 812.5ms" or "… in 878.457µs" of a line, in seconds (the
    // first " in " may be prose: "questions in one `dig -f` process").
    let seconds = |figure: &str| -> Option<f64> {
        let after = figure.rsplit(" in ").next()?;
        let token = after.split([';', ' ']).next()?;
        duration_seconds(token)
    };
    let doctor = line("doctor:")?;
    let dig = line("dig-f:")?;
    let adns = line("adnshost:")?;
    let ceiling = line("dnsperf:")?;
    let share = line("share:").ok();
    let single = line("one hostname")?;
    let doctor_s = seconds(&doctor).context("no time on the doctor line")?;
    // The doctor is timed inside its process, adnshost as a process: its start-up (one
    // question, the same way) is taken off its times before they are compared.
    let adns_startup = line("adnshost-startup:")
        .ok()
        .and_then(|startup| seconds(&startup));
    let adns_subject = adns_subject(&adns);
    let doctor_subject = match in_flight(&doctor, "hostnames in flight") {
        Some(setting) => {
            format!("doctor (one batch, {setting} hostnames in flight; median of its runs)")
        }
        None => "doctor (one batch; median of its runs)".to_owned(),
    };
    // (subject, figure, seconds taken off its times before comparing)
    let mut peers = vec![("dig -f FILE (one process)".to_owned(), dig.clone(), 0.0)];
    let adns_skipped = adns.starts_with("skipped");
    if !adns_skipped {
        peers.push((
            adns_subject.clone(),
            adns.clone(),
            adns_startup.unwrap_or(0.0),
        ));
    }
    // "fastest 1.234s," on the doctor's and adnshost's lines (not "fastest 8.37", a CPU time)
    let fastest = |figure: &str| -> Option<f64> {
        figure
            .split("fastest ")
            .skip(1)
            .find_map(|after| seconds(&format!(" in {}", after.split([',', ' ', ')']).next()?)))
    };
    let mut rows = vec![];
    let faster = peers
        .iter()
        .all(|(_, figure, off)| seconds(figure).is_some_and(|peer| peer - off > doctor_s));
    // The goal is read at the medians; a peer whose fastest run beats the doctor's fastest is
    // said beside it, so the verdict never says more than the runs do.
    let beaten_at_best: Vec<String> = peers
        .iter()
        .filter_map(|(subject, figure, off)| {
            let (peer, doctor) = (fastest(figure)? - off, fastest(&doctor)?);
            (peer < doctor).then(|| {
                format!(
                    "{}'s fastest run ({:.0} ms{}) beats the doctor's fastest ({:.0} ms)",
                    subject.split(' ').next().unwrap_or(subject),
                    peer * 1000.0,
                    if *off > 0.0 {
                        ", less its start-up"
                    } else {
                        ""
                    },
                    doctor * 1000.0
                )
            })
        })
        .collect();
    let goal_text = "faster than every batch peer on the same questions, at the median";
    let mut verdict = if adns_skipped {
        format!("not compared (goal {goal_text}): adnshost {adns}")
    } else {
        goal(faster, goal_text)
    };
    // A win by a hair is a tie on a machine whose speed drifts from run to run: the margin
    // over the closest peer is said, and under LEVEL_MARGIN called level.
    let closest = peers
        .iter()
        .filter_map(|(subject, figure, off)| Some((subject, seconds(figure)? - off)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let (true, false, Some((subject, peer))) = (faster, adns_skipped, closest) {
        let margin = (1.0 - doctor_s / peer) * 100.0;
        let name = subject.split(' ').next().unwrap_or(subject);
        verdict = format!(
            "{verdict}, by {margin:.1} % against {name}'s median{}",
            if margin < LEVEL_MARGIN_PERCENT {
                format!(": under {LEVEL_MARGIN_PERCENT:.0} %, level with it")
            } else {
                String::new()
            }
        );
    }
    if let (Some(startup), false) = (adns_startup, adns_skipped) {
        verdict = format!(
            "{verdict}; the doctor timed in its process, adnshost as a process less its start-up ({:.1} ms, one question)",
            startup * 1000.0
        );
    }
    rows.push((
        "doctor: batch",
        doctor_subject,
        doctor,
        if beaten_at_best.is_empty() {
            verdict
        } else {
            format!("{verdict}; but {}", beaten_at_best.join("; "))
        },
    ));
    // CPU time per question, beside the wall-clock times: it leaves out waiting (adnshost's
    // retransmit timer) and moves less with the machine's load.
    let micros = |figure: &str| -> Option<f64> {
        let (before, _) = figure.split_once(" µs")?;
        before.rsplit([' ', '(']).next()?.parse().ok()
    };
    let doctor_cpu = line("doctor-cpu:").ok();
    if let Some(cpu) = doctor_cpu.clone() {
        let against: Vec<String> = peers
            .iter()
            .filter_map(|(subject, figure, _)| {
                let ratio = micros(&cpu)? / micros(figure)?;
                Some(format!(
                    "×{ratio:.2} of {}'s",
                    subject.split(' ').next().unwrap_or(subject)
                ))
            })
            .collect();
        let mut ratio = if against.is_empty() {
            String::new()
        } else {
            format!(
                "the doctor's CPU per question (medians) is {}",
                against.join(", ")
            )
        };
        // pair by pair against adnshost, which drifts less than a ratio of two medians
        if let Ok(pairs) = line("cpu-pairs:") {
            ratio = format!("{ratio}; {pairs}");
        }
        rows.push((
            "doctor: batch",
            "CPU per question: the doctor's thread, its analysis included".to_owned(),
            cpu,
            ratio,
        ));
    }
    if let Ok(analysis) = line("doctor-analysis:") {
        let share = match (micros(&analysis), doctor_cpu.as_deref().and_then(micros)) {
            (Some(alone), Some(all)) => format!(
                "{:.0} % of the doctor's CPU per question; the rest is asking (sockets, parsing)",
                alone / all * 100.0
            ),
            _ => String::new(),
        };
        rows.push((
            "doctor: batch",
            "the analysis alone: the run replayed from its capture".to_owned(),
            analysis,
            share,
        ));
    }
    let pairs = line("pairs:").ok();
    for (subject, figure, off) in [
        ("dig -f FILE (one process)".to_owned(), dig, 0.0),
        (adns_subject, adns, adns_startup.unwrap_or(0.0)),
    ] {
        let mut ratio = seconds(&figure)
            .map(|peer| {
                if off > 0.0 {
                    format!(
                        "the doctor takes ×{:.2} its time less its start-up (×{:.2} of all of it)",
                        doctor_s / (peer - off),
                        doctor_s / peer
                    )
                } else {
                    format!("the doctor takes ×{:.2} its time", doctor_s / peer)
                }
            })
            .unwrap_or_default();
        if let (true, Some(pairs)) = (subject.starts_with("adnshost"), &pairs) {
            ratio = format!("{ratio}; {pairs}");
        }
        if let (true, Ok(settings)) = (subject.starts_with("adnshost"), line("adnshost-settings:"))
        {
            ratio = format!("{ratio}; {settings}");
        }
        rows.push(("doctor: batch", subject, figure, ratio));
    }
    let share_percent = share.as_deref().and_then(|share| {
        let (before, _) = share.split_once(" %")?;
        before.rsplit(' ').next()?.parse::<f64>().ok()
    });
    rows.push((
        "doctor: batch",
        "dnsperf on the same questions (the server's ceiling)".to_owned(),
        ceiling,
        match (&share, share_percent) {
            (Some(share), Some(percent)) => {
                let outran = if percent > 100.0 {
                    "; the doctor outran dnsperf, so this is dnsperf's limit on this machine, not the server's"
                } else {
                    ""
                };
                format!(
                    "{share}; {}{outran}",
                    goal(percent >= 50.0, "≥ 50 % of the ceiling")
                )
            }
            _ => "MISSED (goal ≥ 50 % of the ceiling): no share measured".to_owned(),
        },
    ));
    rows.push((
        "doctor: one host",
        "doctor, full report".to_owned(),
        single
            .split_once(':')
            .map_or(single.as_str(), |(_, rest)| rest)
            .trim()
            .to_owned(),
        String::new(),
    ));
    Ok(rows)
}

/// The number before `what` in a line ("… (96 hostnames in flight, …"), or "all".
fn in_flight(line: &str, what: &str) -> Option<String> {
    let (before, _) = line.split_once(what)?;
    let setting = before.trim_end().rsplit([' ', '(']).next()?;
    (!setting.is_empty()).then(|| setting.to_owned())
}

/// The adnshost row's subject, with the number of questions it kept in flight.
fn adns_subject(adns: &str) -> String {
    match in_flight(adns, "in flight, its best") {
        Some(setting) => format!(
            "adnshost -a -f ({setting} questions in flight, its best setting; median of its runs)"
        ),
        None => "adnshost -a -f (median of its runs)".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doctor_rows_compare_with_every_peer_and_the_ceiling() {
        let text = "set-up: …\n\
            doctor: 1000 hostnames, 7115 DNS questions, 200 errors found (96 hostnames in flight, its default); 7 runs, fastest 1.010s, slowest 1.500s, median in 1.130s\n\
            doctor-cpu: 12.50 µs of its thread's CPU per question (median run; fastest 12.07, slowest 15.22), the analysis included\n\
            doctor-analysis: the same run replayed from its capture (answers from memory: no socket, no parsing), 5.00 µs of CPU per question, median of 7 in 42.083ms\n\
            doctor-rate: 6296 questions/s\n\
            dig-f: the same 7115 questions in one `dig -f` process (+noall +tries=1 +time=2), 50.00 µs of CPU per question, in 4.512s\n\
            adnshost: the same 7115 questions through `adnshost -a -f` (512 in flight, its best; its socket's receive buffer 16384 KiB: the kernel's default raised from 208 KiB for its runs only, so that no answer is dropped), 10.00 µs of CPU per question (median; fastest 8.37, slowest 12.42); 7 runs, fastest 90.1ms, slowest 2.1s (3 of them waited over 1 s for adns's retransmit), median in 950.2ms; 7115 answered, 0 timed out (the median run)\n\
            adnshost-settings: median run with each number of questions in flight: 32 1.2s, 128 990.0ms, 512 950.2ms, all 960.0ms; the best, 512, is its figure\n\
            adnshost-startup: start-up, one question and exit, as a process (median of 15) in 2.000ms\n\
            dnsperf: 9500 questions/s on the same 7115 questions, ten times over (-c 4 -T 2 -q 200); 0 of 71150 lost\n\
            pairs: the doctor was faster than adnshost in 5 of 7 pairs (each doctor run against the adnshost run right after it)\n\
            cpu-pairs: pair by pair, the doctor's CPU per question was ×1.20 of adnshost's at the median (×0.90 to ×1.60), less in 2 of 7 pairs\n\
            share: the doctor asked 6296 questions/s, 66.3 % of the server's dnsperf ceiling (median of 7 runs; the slowest run 49.7 %); adnshost asked 7488 questions/s at its median, 78.8 % of it\n\
            one hostname, full report (DNS, CAA climb, TLS probe, GET /): median 1.35ms over 21 runs\n";
        let rows = doctor_rows(text).unwrap();
        assert_eq!(rows.len(), 7);
        assert_eq!(
            rows[0].1,
            "doctor (one batch, 96 hostnames in flight; median of its runs)"
        );
        assert_eq!(
            rows[4].1,
            "adnshost -a -f (512 questions in flight, its best setting; median of its runs)"
        );
        assert!(rows[4].3.contains("×1.19 of all of it"), "{}", rows[4].3);
        assert!(
            rows[4].3.contains("the best, 512, is its figure"),
            "{}",
            rows[4].3
        );
        assert!(
            rows[0].3.starts_with("MISSED"),
            "adnshost was faster: {}",
            rows[0].3
        );
        assert_eq!(
            rows[1].3,
            "the doctor's CPU per question (medians) is ×0.25 of dig's, ×1.25 of adnshost's; \
             pair by pair, the doctor's CPU per question was ×1.20 of adnshost's at the median \
             (×0.90 to ×1.60), less in 2 of 7 pairs"
        );
        assert_eq!(
            rows[2].3,
            "40 % of the doctor's CPU per question; the rest is asking (sockets, parsing)"
        );
        assert!(rows[3].3.contains("×0.25"), "{}", rows[3].3);
        assert!(
            rows[4].3.contains("; the doctor was faster than adnshost in 5 of 7 pairs (each doctor run against the adnshost run right after it)"),
            "{}",
            rows[4].3
        );
        assert!(rows[5].3.contains("met (goal ≥ 50 %"), "{}", rows[5].3);
        assert!(
            rows[5]
                .3
                .contains("; adnshost asked 7488 questions/s at its median, 78.8 % of it;"),
            "the peer's share is read beside the doctor's: {}",
            rows[5].3
        );
        let faster = text.replace("in 950.2ms", "in 2.5s");
        let verdict = &doctor_rows(&faster).unwrap()[0].3;
        assert!(verdict.starts_with("met"), "{verdict}");
        // the doctor's 1.130 s against adnshost's 2.5 s and dig's 4.512 s: a clear win
        assert!(
            verdict.contains("by 54.8 % against adnshost's median") && !verdict.contains("level"),
            "{verdict}"
        );
        let hair = text.replace("in 950.2ms", "in 1.16s");
        let verdict = &doctor_rows(&hair).unwrap()[0].3;
        assert!(
            verdict.contains("by 2.4 % against adnshost's median: under 5 %, level with it"),
            "{verdict}"
        );
        assert!(
            verdict.contains("adnshost's fastest run (88 ms, less its start-up) beats the doctor's fastest (1010 ms)")
                && verdict
                    .contains("adnshost as a process less its start-up (2.0 ms, one question)"),
            "{verdict}"
        );
        // a start-up under a millisecond, as `Debug` prints it, is read, taken off and said
        let quick_start = hair.replace("(median of 15) in 2.000ms", "(median of 15) in 878.457µs");
        let verdict = &doctor_rows(&quick_start).unwrap()[0].3;
        assert!(
            verdict.contains("adnshost as a process less its start-up (0.9 ms, one question)"),
            "{verdict}"
        );
        assert_eq!(duration_seconds("950ns"), Some(950e-9));
        assert_eq!(duration_seconds("1.5s"), Some(1.5));
        assert_eq!(duration_seconds("12.5ms"), Some(0.0125));
        assert_eq!(duration_seconds("fast"), None);
        let slower_at_best = faster.replace("fastest 90.1ms", "fastest 1.2s");
        let verdict = &doctor_rows(&slower_at_best).unwrap()[0].3;
        assert!(!verdict.contains("beats"), "{verdict}");
        assert!(!rows[5].3.contains("outran"), "{}", rows[5].3);
        let past = text.replace("66.3 %", "108.5 %");
        assert!(doctor_rows(&past).unwrap()[5].3.contains("outran dnsperf"));
        let slow_share = text.replace("66.3 %", "42.0 %");
        assert!(doctor_rows(&slow_share).unwrap()[5].3.contains("MISSED"));
        let skipped = text.replace(
            "adnshost: the same 7115 questions through `adnshost -a -f` (512 in flight, its best; its socket's receive buffer 16384 KiB: the kernel's default raised from 208 KiB for its runs only, so that no answer is dropped), 10.00 µs of CPU per question (median; fastest 8.37, slowest 12.42); 7 runs, fastest 90.1ms, slowest 2.1s (3 of them waited over 1 s for adns's retransmit), median in 950.2ms; 7115 answered, 0 timed out (the median run)",
            "adnshost: skipped (not installed: Debian `adns-tools`)",
        );
        let verdict = &doctor_rows(&skipped).unwrap()[0].3;
        assert!(
            verdict.starts_with("not compared") && verdict.contains("not installed"),
            "without adnshost there is no verdict: {verdict}"
        );
    }
}

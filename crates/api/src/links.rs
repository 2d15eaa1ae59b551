//! `domain-desk://` links, so that a support reply can point at the right place: read here,
//! without Tauri (the window's shell only hands them over), into what the window should show.
//!
//! - `domain-desk://diagnose/<hostname>` opens the Diagnose panel for a hostname;
//! - `domain-desk://project/<project-id>` opens a project;
//! - `domain-desk://project/<project-id>/domain/<hostname>` opens one of its domains.
//!
//! A link only ever *shows* something: none of these forms changes anything. Everything else,
//! or a form with a part that is not what it should be, is refused with a sentence that says
//! so and quotes nothing of the link, so that a hostile link cannot put its text in the window.

use std::ffi::OsString;

use serde::Serialize;

use crate::{Error, Hostname, Result};

/// The links' scheme, as registered with the system.
pub const SCHEME: &str = "domain-desk";

/// Longer links are refused unread: no valid link comes near it.
const MAX_LEN: usize = 1024;
/// A project id: what the platform hands out (letters, digits, `-` and `_`).
const MAX_PROJECT_ID: usize = 64;

/// What a link asks the window to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Link {
    Diagnose {
        hostname: String,
    },
    Project {
        project_id: String,
    },
    Domain {
        project_id: String,
        hostname: String,
    },
}

// Why a link was refused, for a person ([`Error::RefusedLink`]). None repeats the link.
const NOT_OURS: Error =
    Error::RefusedLink("The link is not a Domain Desk link, so it was ignored.");
const MALFORMED: Error = Error::RefusedLink(
    "The Domain Desk link could not be read (it should look like domain-desk://diagnose/www.example.com), so it was ignored.",
);
const BAD_HOSTNAME: Error =
    Error::RefusedLink("The link names a hostname that is not valid, so it was ignored.");
const NOT_TEXT: Error =
    Error::RefusedLink("The link holds bytes that are not text (UTF-8), so it was ignored.");
const BAD_PROJECT: Error =
    Error::RefusedLink("The link names a project id that is not valid, so it was ignored.");

/// Reads a link. Case is ignored in the scheme and the keywords; one trailing `/` is allowed.
pub fn parse(link: &str) -> Result<Link> {
    if link.len() > MAX_LEN {
        return Err(MALFORMED);
    }
    // U+FFFD stands where bytes that were not UTF-8 were (a link made text lossily, as a
    // second launch's arguments are); a real link carries any other character %-encoded.
    if link.contains('\u{fffd}') {
        return Err(NOT_TEXT);
    }
    let (scheme, rest) = link.split_once("://").ok_or(NOT_OURS)?;
    if !scheme.eq_ignore_ascii_case(SCHEME) {
        return Err(NOT_OURS);
    }
    // A query or fragment has no meaning in our links: refused rather than dropped, so what
    // the window shows is all the link says.
    if rest.contains(['?', '#']) {
        return Err(MALFORMED);
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let parts: Vec<String> = rest
        .split('/')
        .map(percent_decode)
        .collect::<Option<_>>()
        .ok_or(MALFORMED)?;
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    match parts.as_slice() {
        [verb, host] if verb.eq_ignore_ascii_case("diagnose") => Ok(Link::Diagnose {
            hostname: hostname(host)?,
        }),
        [noun, project] if noun.eq_ignore_ascii_case("project") => Ok(Link::Project {
            project_id: project_id(project)?,
        }),
        [noun, project, sub, host]
            if noun.eq_ignore_ascii_case("project") && sub.eq_ignore_ascii_case("domain") =>
        {
            Ok(Link::Domain {
                project_id: project_id(project)?,
                hostname: hostname(host)?,
            })
        }
        _ => Err(MALFORMED),
    }
}

fn hostname(text: &str) -> Result<String> {
    Hostname::parse(text)
        .map(|name| name.to_string())
        .map_err(|_| BAD_HOSTNAME)
}

fn project_id(text: &str) -> Result<String> {
    let ok = !text.is_empty()
        && text.len() <= MAX_PROJECT_ID
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(text.to_owned())
    } else {
        Err(BAD_PROJECT)
    }
}

/// `%XX` decoding into UTF-8 (an internationalised hostname arrives encoded); `None` for a
/// broken escape or bytes that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The link among a program's arguments (a link opened by the system arrives as the only
/// argument after the program's path), if there is one.
pub fn from_args<S: AsRef<str>>(args: &[S]) -> Option<&str> {
    args.iter().skip(1).map(AsRef::as_ref).find(|arg| {
        arg.get(..SCHEME.len() + 3)
            .is_some_and(|start| start.eq_ignore_ascii_case("domain-desk://"))
    })
}

/// The link among a program's arguments as the system handed them over (any bytes), read:
/// `None` when no argument is a link, else the link or why it was refused. An argument that
/// starts as a link but is not UTF-8 is refused with a notice, never a panic.
pub fn from_args_os(args: &[OsString]) -> Option<Result<Link>> {
    let link = args.iter().skip(1).find(|arg| {
        arg.as_encoded_bytes()
            .get(..SCHEME.len() + 3)
            .is_some_and(|start| start.eq_ignore_ascii_case(b"domain-desk://"))
    })?;
    Some(link.to_str().ok_or(NOT_TEXT).and_then(parse))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnose_a_hostname() {
        assert_eq!(
            parse("domain-desk://diagnose/www.example.com"),
            Ok(Link::Diagnose {
                hostname: "www.example.com".into()
            })
        );
        assert_eq!(
            parse("DOMAIN-DESK://Diagnose/WWW.Example.com/"),
            Ok(Link::Diagnose {
                hostname: "www.example.com".into()
            })
        );
    }

    #[test]
    fn an_internationalised_hostname_arrives_percent_encoded() {
        let link = parse("domain-desk://diagnose/m%C3%BCnchen.example.com").unwrap();
        assert_eq!(
            link,
            Link::Diagnose {
                hostname: "xn--mnchen-3ya.example.com".into()
            }
        );
    }

    #[test]
    fn a_project_and_one_of_its_domains() {
        assert_eq!(
            parse("domain-desk://project/pro-site"),
            Ok(Link::Project {
                project_id: "pro-site".into()
            })
        );
        assert_eq!(
            parse("domain-desk://project/prj_42/domain/shop.example.com"),
            Ok(Link::Domain {
                project_id: "prj_42".into(),
                hostname: "shop.example.com".into()
            })
        );
    }

    #[test]
    fn hostile_and_malformed_links_are_refused_without_quoting_them() {
        for link in [
            "domain-desk://diagnose/<img src=x onerror=alert(1)>",
            "domain-desk://diagnose/%3Cscript%3Ealert(1)%3C%2Fscript%3E",
            "domain-desk://diagnose/www.example.com/extra",
            "domain-desk://diagnose/",
            "domain-desk://diagnose/www.example.com?remove=1",
            "domain-desk://diagnose/www.example.com#x",
            "domain-desk://remove/www.example.com",
            "domain-desk://project/../../etc/passwd",
            "domain-desk://project/a%2Fb/domain/www.example.com",
            "domain-desk://project/pro-site/domain/%ZZ",
            "domain-desk://diagnose/%+Fexample.com",
            "domain-desk://diagnose/%FF%FE",
            "https://diagnose/www.example.com",
            "javascript:alert(1)",
            "",
        ] {
            let refused = parse(link).expect_err(link);
            assert!(
                !refused.to_string().contains('<') && !refused.to_string().contains("alert"),
                "{link}: {refused}"
            );
        }
        let long = format!("domain-desk://diagnose/{}", "a.".repeat(600));
        assert_eq!(parse(&long), Err(MALFORMED));
    }

    #[test]
    fn the_link_among_arguments() {
        let args = ["/usr/bin/domain-desk", "domain-desk://diagnose/a.example"];
        assert_eq!(from_args(&args), Some("domain-desk://diagnose/a.example"));
        assert_eq!(from_args(&["/usr/bin/domain-desk"]), None);
        // The program's own path is never taken for a link.
        assert_eq!(from_args(&["domain-desk://x"]), None);
    }

    /// The desktop hands a link over as bytes; one that is not UTF-8 is refused with a
    /// notice (not a panic), whether it arrives as it is or already made text with U+FFFD in
    /// place of its bad bytes (as the single-instance plugin hands a second launch's on).
    #[test]
    fn a_link_that_is_not_text_is_refused_with_a_notice() {
        assert_eq!(
            parse("domain-desk://diagnose/www.\u{fffd}.example"),
            Err(NOT_TEXT)
        );
        let args = |link: OsString| vec![OsString::from("/usr/bin/domain-desk"), link];
        assert_eq!(
            from_args_os(&args("domain-desk://diagnose/www.example.com".into())),
            Some(Ok(Link::Diagnose {
                hostname: "www.example.com".into()
            }))
        );
        assert_eq!(from_args_os(&args("info".into())), None);
        assert_eq!(from_args_os(&args(OsString::new())), None);
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt as _;
            let bytes = b"Domain-Desk://diagnose/www.\xff\xfe.example".to_vec();
            assert_eq!(
                from_args_os(&args(OsString::from_vec(bytes))),
                Some(Err(NOT_TEXT))
            );
            // Not a link at all: left to the command line's parser, which refuses it.
            let bytes = b"\xffdomain-desk://".to_vec();
            assert_eq!(from_args_os(&args(OsString::from_vec(bytes))), None);
        }
        assert!(!NOT_TEXT.to_string().contains('\u{fffd}'));
    }
}

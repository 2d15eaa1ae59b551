//! A `domain-desk://` link can come from any web page or message (the system hands it to the
//! app as an argument, any bytes): reading it never panics; what it accepts is a hostname
//! the API accepts or a plain project id; and a refusal never quotes the link.
#![no_main]

use domain_desk_api::Hostname;
use domain_desk_api::links::{self, Link};
use libfuzzer_sys::fuzz_target;

fn check(read: &domain_desk_api::Result<Link>) {
    let project = |id: &str| {
        assert!(!id.is_empty() && id.len() <= 64);
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
    };
    let hostname = |name: &str| {
        assert_eq!(
            Hostname::parse(name).map(|h| h.to_string()).as_deref(),
            Ok(name)
        );
    };
    match read {
        Ok(Link::Diagnose { hostname: name }) => hostname(name),
        Ok(Link::Project { project_id }) => project(project_id),
        Ok(Link::Domain {
            project_id,
            hostname: name,
        }) => {
            project(project_id);
            hostname(name);
        }
        Err(refused) => {
            let message = refused.to_string();
            assert!(message.ends_with("so it was ignored."), "{message}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        check(&links::parse(text));
    }
    #[cfg(unix)]
    {
        use std::ffi::OsString;
        use std::os::unix::ffi::OsStringExt as _;
        let args = [
            OsString::from("domain-desk"),
            OsString::from_vec(data.to_vec()),
        ];
        if let Some(read) = links::from_args_os(&args) {
            check(&read);
        }
    }
});

/// Every command the window may call; each gets an `allow-<name>` permission that
/// `capabilities/main.json` grants to the main window.
const COMMANDS: &[&str] = &[
    "app_info",
    "session_get",
    "demo_start",
    "connect",
    "accounts_list",
    "account_switch",
    "account_forget",
    "rate_limit_state",
    "projects_list",
    "project_get",
    "domains_list",
    "domain_get",
    "domain_add",
    "domain_verify",
    "domain_remove",
    "domain_config_get",
    "domain_make_primary",
    "domain_redirect",
    "domains_import",
    "domains_import_cancel",
    "domains_export",
    "domain_connect_offer",
    "domain_connect_set_up",
    "hostname_check",
    "demo_dns_zones",
    "demo_dns_records",
    "demo_dns_add",
    "demo_dns_delete",
    "demo_dns_add_zone",
    "demo_dns_signatures",
    "clock_get",
    "clock_set_speed",
    "clock_advance",
    "demo_reset",
    "diagnose",
    "diagnostics_save",
    "dns_look",
    "settings_get",
    "settings_set",
    "open_in_browser",
    "report_save",
    "notify",
    "renewal_state",
    "link_take",
    "watch_report",
    "update_check",
    "update_install",
];

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri-build failed: check tauri.conf.json and capabilities/");
}

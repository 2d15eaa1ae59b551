// Every Tauri command the window calls, in one place, with its argument names. Tauri maps the
// camelCase keys here to the Rust commands' snake_case parameters.

import { invoke, channel } from './tauri.js';
import { noteReport } from './diagnoses.js';

export const api = {
  appInfo: () => invoke('app_info'),
  session: () => invoke('session_get'),
  startDemo: () => invoke('demo_start'),
  connect: (baseUrl, apiKey) => invoke('connect', { baseUrl, apiKey }),
  accounts: () => invoke('accounts_list'),
  switchAccount: (id) => invoke('account_switch', { id }),
  forgetAccount: (id) => invoke('account_forget', { id }),
  projects: () => invoke('projects_list'),
  project: (projectId) => invoke('project_get', { projectId }),
  domains: (projectId, background = false) => invoke('domains_list', { projectId, background }),
  domain: (projectId, hostname, background = false) => invoke('domain_get', { projectId, hostname, background }),
  addDomain: (projectId, hostname, redirectTo = null) => invoke('domain_add', { projectId, hostname, redirectTo }),
  verify: (projectId, hostname) => invoke('domain_verify', { projectId, hostname }),
  /** Background re-verify of several domains in one call: `{domains, stopped}` (see `domains_reverify`). */
  reverify: (projectId, hostnames) => invoke('domains_reverify', { projectId, hostnames }),
  removeDomain: (projectId, hostname) => invoke('domain_remove', { projectId, hostname }),
  makePrimary: (projectId, hostname) => invoke('domain_make_primary', { projectId, hostname }),
  setRedirect: (projectId, hostname, to) => invoke('domain_redirect', { projectId, hostname, to }),
  // Another project of the same account; the platform keeps status and certificate.
  moveDomain: (projectId, hostname, toProjectId) => invoke('domain_move', { projectId, hostname, toProjectId }),
  // Import… and Export…: the file is picked by the system's dialog on the Rust side; the
  // window never names one. `again` reads the file the last refusal named instead of opening
  // the dialog; `skipInvalid` imports the valid rows and writes the invalid ones to the retry
  // file (otherwise they refuse the file: `import_refused`).
  importDomains: (projectId, onProgress, { again = false, skipInvalid = false } = {}) =>
    invoke('domains_import', { projectId, again, skipInvalid, onProgress: channel(onProgress) }),
  cancelImport: () => invoke('domains_import_cancel'),
  exportDomains: (projectId, format) => invoke('domains_export', { projectId, format }),
  // Set up automatically (Domain Connect): whether the provider offers it, then the flow.
  domainConnectOffer: (hostname) => invoke('domain_connect_offer', { hostname }),
  // `providerHost`: the consent page's host the user approved (the offer's `host`).
  domainConnectSetUp: (projectId, hostname, providerHost) => invoke('domain_connect_set_up', { projectId, hostname, providerHost }),
  domainConfig: (projectId) => invoke('domain_config_get', { projectId }),
  checkHostname: (hostname) => invoke('hostname_check', { hostname }),
  queueState: () => invoke('rate_limit_state'),
  zones: () => invoke('demo_dns_zones'),
  zoneRecords: (zone) => invoke('demo_dns_records', { zone }),
  addZoneRecord: (zone, record) => invoke('demo_dns_add', { zone, record }),
  deleteZoneRecord: (zone, id) => invoke('demo_dns_delete', { zone, id }),
  addZone: (zone) => invoke('demo_dns_add_zone', { zone }),
  setZoneSignatures: (zone, signatures) => invoke('demo_dns_signatures', { zone, signatures }),
  clock: () => invoke('clock_get'),
  setClockSpeed: (speed) => invoke('clock_set_speed', { speed }),
  advanceClock: (seconds) => invoke('clock_advance', { seconds }),
  resetDemo: () => invoke('demo_reset'),
  openInBrowser: (hostname) => invoke('open_in_browser', { hostname }),
  // Its findings are kept in the app state too (lib/diagnoses.js).
  diagnose: (hostname, target = null) => invoke('diagnose', { hostname, target }).then((diagnosis) => {
    noteReport(diagnosis?.report);
    return diagnosis;
  }),
  // The window's own look at a name's records (DNS only, no API request).
  dnsLook: (hostname, target = null) => invoke('dns_look', { hostname, target }),
  preflight: (hostname, target = null) => invoke('preflight', { hostname, target }),
  saveReport: (hostname, json) => invoke('report_save', { hostname, json }),
  // Save diagnostics…: the doctor's run with capture on; the file is picked on the Rust side.
  saveDiagnostics: (hostname, target = null) => invoke('diagnostics_save', { hostname, target }),
  notify: (title, body) => invoke('notify', { title, body }),
  settings: () => invoke('settings_get'),
  saveSettings: (settings) => invoke('settings_set', { settings }),
  // The desktop program: the link waiting to be shown, the domains watched (so closing the
  // window can keep watching from the tray), and updates.
  takeLink: () => invoke('link_take'),
  reportWatch: (hostnames) => invoke('watch_report', { hostnames }),
  checkUpdate: () => invoke('update_check'),
  installUpdate: () => invoke('update_install'),
};

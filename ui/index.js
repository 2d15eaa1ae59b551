// Registers the custom elements; the page's markup (index.html) places them. Each tag is
// `dd-` and its folder's name: <dd-NAME> lives in components/NAME/NAME.js.
import { AppShell } from './components/app-shell/app-shell.js';
import { FirstRun } from './components/first-run/first-run.js';
import { ProjectList } from './components/project-list/project-list.js';
import { ProjectView } from './components/project-view/project-view.js';
import { RowMenu } from './components/row-menu/row-menu.js';
import { DomainsTable } from './components/domains-table/domains-table.js';
import { DomainDetail } from './components/domain-detail/domain-detail.js';
import { AddDomain } from './components/add-domain/add-domain.js';
import { ConfirmDialog } from './components/confirm-dialog/confirm-dialog.js';
import { RedirectDialog } from './components/redirect-dialog/redirect-dialog.js';
import { MoveDialog } from './components/move-dialog/move-dialog.js';
import { DiagnosePanel } from './components/diagnose-panel/diagnose-panel.js';
import { RateMeter } from './components/rate-meter/rate-meter.js';
import { DemoControls } from './components/demo-controls/demo-controls.js';
import { DemoDns } from './components/demo-dns/demo-dns.js';
import { AboutDialog } from './components/about-dialog/about-dialog.js';
import { AccountSwitcher } from './components/account-switcher/account-switcher.js';
import { AccountRisks } from './components/account-risks/account-risks.js';
import { Toasts } from './components/toasts/toasts.js';
import { BulkPanel } from './components/bulk-panel/bulk-panel.js';
import { RenewalSection } from './components/renewal-section/renewal-section.js';
import { UpdateNotice } from './components/update-notice/update-notice.js';
import { startLinks } from './lib/links.js';
import { mark } from './lib/perf.js';
import { diagnose } from './lib/actions.js';

mark('modules-loaded');

const ELEMENTS = {
  'dd-toasts': Toasts,
  'dd-confirm-dialog': ConfirmDialog,
  'dd-redirect-dialog': RedirectDialog,
  'dd-move-dialog': MoveDialog,
  'dd-add-domain': AddDomain,
  'dd-diagnose-panel': DiagnosePanel,
  'dd-demo-dns': DemoDns,
  'dd-about-dialog': AboutDialog,
  'dd-rate-meter': RateMeter,
  'dd-demo-controls': DemoControls,
  'dd-account-switcher': AccountSwitcher,
  'dd-account-risks': AccountRisks,
  'dd-first-run': FirstRun,
  'dd-project-list': ProjectList,
  'dd-bulk-panel': BulkPanel,
  'dd-update-notice': UpdateNotice,
  'dd-row-menu': RowMenu,
  'dd-domains-table': DomainsTable,
  'dd-renewal-section': RenewalSection,
  'dd-domain-detail': DomainDetail,
  'dd-project-view': ProjectView,
  'dd-app-shell': AppShell,
};

for (const [name, element] of Object.entries(ELEMENTS)) customElements.define(name, element);

document.getElementById('about-button').addEventListener('click', () => document.getElementById('about-host').open());
document.getElementById('diagnose-any-button').addEventListener('click', () => diagnose());
startLinks();

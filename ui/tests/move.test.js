// Move to another project: the targets are the account's other projects, the dialog says
// nothing stops being served (and what does change), Move domain is not drawn as a removal,
// and the detail panel and the row's menu both offer it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { moveTargets, moveSummary, movedNotice, moveRefusal } from '../lib/move.js';
import { domain } from './fixtures.js';

const read = (path) => readFileSync(new URL(path, import.meta.url), 'utf8');
const SITE = { id: 'prj_site', name: 'Pro site', primary_domain: 'shop.example.org' };
const DRAFT = { id: 'prj_draft', name: 'Pro draft', primary_domain: null };
const BLOG = { id: 'prj_blog', name: 'Blog', primary_domain: 'blog.example.com' };

test('the targets are the account’s other projects, by name', () => {
  assert.deepEqual(moveTargets([SITE, DRAFT, BLOG], 'prj_site').map((p) => p.name), ['Blog', 'Pro draft']);
  assert.deepEqual(moveTargets(null, 'prj_site'), []);
});

test('the confirmation says nothing stops being served, and what changes', () => {
  const live = domain({ hostname: 'shop.example.org', unicode_hostname: 'shop.example.org', status: 'live', role: 'primary' });
  const toDraft = moveSummary(live, SITE, DRAFT);
  assert.match(toDraft, /nothing stops being served/);
  assert.match(toDraft, /served from Pro draft from the same moment/);
  assert.match(toDraft, /becomes the primary domain of Pro draft; Pro site is then served at its own address/);
  assert.match(moveSummary(live, SITE, BLOG), /joins Blog as an alias \(blog\.example\.com stays its primary\)/);
  const pending = domain({ role: 'alias' });
  assert.match(moveSummary(pending, SITE, DRAFT), /keeps its status, records and certificate; nothing stops being served/);
  const www = domain({ hostname: 'www.example.org', unicode_hostname: 'www.example.org', role: 'redirect', redirect: { to: 'shop.example.org', status: 301 } });
  assert.match(moveSummary(live, SITE, DRAFT, [live, www]), /www\.example\.org redirects to Pro site’s current address instead/);
  assert.equal(movedNotice(live, DRAFT), 'Moved shop.example.org to Pro draft; it is served from there.');
});

test('Move is offered in the detail panel and the row’s menu, never drawn red', () => {
  const detail = read('../components/domain-detail/domain-detail.js');
  assert.match(detail, /<button type="button" id="detail-move">Move…<\/button>/);
  const menu = read('../components/row-menu/row-menu.js');
  assert.match(menu, /<button type="button" role="menuitem" id="menu-move" data-action="move">Move to project…<\/button>/);
  const dialog = read('../components/move-dialog/move-dialog.js');
  assert.match(dialog, /id="move-submit" class="primary"/);
  assert.doesNotMatch(dialog, /danger/);
});

test('a refusal is said in the words of the move', () => {
  assert.equal(moveRefusal({ kind: 'deploy_required', message: 'x' }, DRAFT), 'Pro draft has no successful deploy yet, so it has nothing to serve under the name. Deploy it once, then move the domain.');
  assert.match(moveRefusal({ code: 'domain_limit_reached' }, BLOG), /^Blog has as many domains as its plan allows/);
  assert.equal(moveRefusal({ kind: 'network' }, DRAFT), null, 'any other: the general words');
});

// Each server's answer as the chain it is, in the doctor's words: a "no such name" sits on the
// link it belongs to (the CNAME's target), never beside the name asked; and the picture of the
// path goes into the panel as parsed SVG nodes, without anything that could run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerText, chainText, chainFails } from '../lib/report.js';

globalThis.HTMLElement ??= class {};
const { pictureElement } = await import('../components/diagnose-panel/diagnose-panel.js');

// Shaped as domain_desk_doctor::SourceView serialises (its `chain`).
const misspelt = {
  source: { label: 'Cloudflare 1.1.1.1', address: '1.1.1.1:53', kind: 'public' },
  status: 'nx_domain',
  error: null,
  records: [{ name: 'www.example.com', type: 'CNAME', ttl: 300, value: 'cname.pages.exmaple.net' }],
  agrees: true,
  chain: {
    links: [{ name: 'www.example.com', target: 'cname.pages.exmaple.net', ttl: 300 }],
    end: { kind: 'no_such_name', name: 'cname.pages.exmaple.net' },
  },
};

test('a CNAME to a missing name says "no such name" at the end of the chain', () => {
  assert.equal(answerText(misspelt), 'www.example.com → cname.pages.exmaple.net: no such name');
  assert.doesNotMatch(answerText(misspelt), /NXDOMAIN|name does not exist/);
  assert.equal(chainFails(misspelt.chain), true);
});

test('every end of a chain in words', () => {
  const link = [{ name: 'www.example.com', target: 'edge.platform.test', ttl: 300 }];
  assert.equal(chainText({ links: link, end: { kind: 'addresses', name: 'edge.platform.test', addresses: ['192.0.2.1', '2001:db8::1'] } }), 'www.example.com → edge.platform.test → 192.0.2.1, 2001:db8::1');
  assert.equal(chainText({ links: link, end: { kind: 'out_of_zone', name: 'edge.platform.test' } }), 'www.example.com → edge.platform.test (another zone’s to answer)');
  assert.equal(chainText({ links: link, end: { kind: 'no_address', name: 'edge.platform.test' } }), 'www.example.com → edge.platform.test: no address');
  assert.equal(chainText({ links: [], end: { kind: 'no_such_name', name: 'gone.example.com' } }), 'gone.example.com: no such name');
  assert.equal(chainText({ links: [], end: { kind: 'failed', name: 'www.example.com', status: 'serv_fail' } }), 'www.example.com: server failure (SERVFAIL)');
  assert.equal(chainFails({ links: link, end: { kind: 'out_of_zone', name: 'edge.platform.test' } }), false);
  // an answer that went wrong before any chain is still said in words
  assert.equal(answerText({ ...misspelt, error: 'timed out after 1.5 s' }), 'no answer in time');
  // a report from before chains keeps its records
  assert.equal(answerText({ ...misspelt, chain: undefined, status: 'no_error', records: [{ type: 'A', value: '192.0.2.1', ttl: 60 }] }), 'A 192.0.2.1 (TTL 60)');
});

/** A tiny XML DOM: enough for pictureElement to parse, clean and import an SVG. */
function fakeDom(children) {
  const element = (localName, attributes = {}, kids = []) => ({
    localName,
    attributes: Object.entries(attributes).map(([name, value]) => ({ name, value })),
    kids,
    removed: false,
    removeAttribute(name) { this.attributes = this.attributes.filter((a) => a.name !== name); },
    remove() { this.removed = true; },
    querySelectorAll(selector) {
      const all = [];
      const walk = (node) => node.kids.forEach((kid) => { all.push(kid); walk(kid); });
      walk(this);
      if (selector === '*') return all;
      const names = selector.split(',').map((name) => name.trim());
      return all.filter((node) => names.includes(node.localName));
    },
  });
  const svg = element('svg', { xmlns: 'http://www.w3.org/2000/svg', onload: 'alert(1)' }, children(element));
  globalThis.DOMParser = class {
    parseFromString(text, type) {
      assert.equal(type, 'image/svg+xml', 'read as XML, never as HTML');
      return { documentElement: text.startsWith('<svg') ? svg : element('parsererror'), getElementsByTagName: () => [] };
    }
  };
  return { svg, doc: { importNode: (node, deep) => (assert.equal(deep, true), { imported: node }) } };
}

test('the picture is parsed as SVG and anything that could run is dropped first', () => {
  const { svg, doc } = fakeDom((element) => [
    element('g', { class: 'ddp-node ddp-wrong', onclick: 'x()' }, [element('title'), element('text')]),
    element('script'),
    element('a', { href: 'https://example.com' }),
  ]);
  const imported = pictureElement('<svg xmlns="http://www.w3.org/2000/svg"></svg>', doc);
  assert.equal(imported.imported, svg);
  assert.deepEqual(svg.attributes.map((a) => a.name), ['xmlns']);
  const [node, script, link] = svg.kids;
  assert.deepEqual(node.attributes.map((a) => a.name), ['class']);
  assert.equal(script.removed, true);
  assert.equal(link.removed, true);
  assert.equal(node.removed, false);
  // nothing, or something that is not an SVG, draws nothing
  assert.equal(pictureElement(null, doc), null);
  assert.equal(pictureElement('<p>not a picture</p>', doc), null);
  delete globalThis.DOMParser;
});

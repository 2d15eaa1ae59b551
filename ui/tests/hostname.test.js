import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHostname, toAscii, toUnicode, urlForPeople } from '../lib/hostname.js';

test('accepts ordinary names and normalises case and the trailing dot', () => {
  assert.deepEqual(checkHostname('WWW.Example.COM.'), { ok: true, ascii: 'www.example.com', changed: true });
  assert.deepEqual(checkHostname('shop.example.co.uk'), { ok: true, ascii: 'shop.example.co.uk', changed: false });
});

test('converts Unicode to A-labels like the service', () => {
  const r = checkHostname('Bücher.example.com');
  assert.equal(r.ok, true);
  assert.equal(r.ascii, 'xn--bcher-kva.example.com');
  assert.equal(checkHostname('xn--bcher-kva.example.com').ok, true);
});

test('refuses what the contract refuses, with a sentence that says why', () => {
  const cases = {
    '': /Enter a hostname/,
    'exa mple.com': /spaces/,
    '*.example.com': /Wildcard/,
    '127.0.0.1': /IP address/,
    '::1': /IP address/,
    '[::1]': /IP address/,
    'a..b.com': /empty label/,
    '.example.com': /empty label/,
    '-bad-.example.com': /letters, digits and hyphens/,
    'under_score.example.com': /cannot contain an underscore.*Use a hyphen instead/,
    'ab--cd.example.com': /letters, digits and hyphens/,
    'https://www.example.com': /web address; the hostname in it is www\.example\.com/,
    'example.com/path': /web address; the hostname in it is example\.com/,
    'https://': /without http/,
    'localhost': /full name/,
    'example.123': /all digits/,
  };
  for (const [input, why] of Object.entries(cases)) {
    const r = checkHostname(input);
    assert.equal(r.ok, false, `accepted ${JSON.stringify(input)}`);
    assert.match(r.message, why, input);
  }
});

test('enforces label and name lengths', () => {
  assert.match(checkHostname(`${'x'.repeat(64)}.example.com`).message, /1 to 63|letters, digits/);
  assert.equal(checkHostname(`${'x'.repeat(63)}.example.com`).ok, true);
  const long = `${'abcdefghi.'.repeat(26)}example.com`;
  assert.match(checkHostname(long).message, /253/);
});

test('refuses names under the platform domain when it is known', () => {
  const r = checkHostname('my-site-abc.Platform.test', { platformDomain: 'platform.test' });
  assert.equal(r.ok, false);
  assert.match(r.message, /belong to the platform/);
  assert.equal(checkHostname('platform.test.example.com', { platformDomain: 'platform.test' }).ok, true);
});

test('a name already in the project is found while typing', async () => {
  const { duplicateOf } = await import('../lib/hostname.js');
  const domains = [{ hostname: 'shop.example.com' }, { hostname: 'xn--bcher-kva.example' }];
  assert.equal(duplicateOf('shop.example.com', domains)?.hostname, 'shop.example.com');
  assert.equal(duplicateOf('SHOP.example.com.', domains)?.hostname, 'shop.example.com');
  assert.equal(duplicateOf('www.example.com', domains), null);
  assert.equal(duplicateOf(null, domains), null);
});

test('A-labels read back as Unicode, and only when they are valid ones', () => {
  const names = {
    'xn--bcher-kva.example': 'bücher.example',
    'www.xn--mnchen-3ya.de': 'www.münchen.de',
    'xn--d1acufc.xn--p1ai': 'домен.рф',
    'xn--fiqs8s.cn': '中国.cn',
    'XN--BCHER-KVA.Example': 'bücher.example',
  };
  for (const [ascii, unicode] of Object.entries(names)) {
    assert.equal(toUnicode(ascii), unicode, ascii);
    assert.equal(toAscii(toUnicode(ascii)), ascii.toLowerCase(), ascii);
  }
  // plain names, and labels that are not punycode, are left as they are
  for (const name of ['example.com', 'xn--.example', 'xn--zzzz.example', 'xn--abc-.example', 'xn--ab!c.example', '']) {
    assert.equal(toUnicode(name), name, name);
  }
  assert.equal(toUnicode(null), null);
});

test('a URL shows its host as people read it', () => {
  assert.equal(urlForPeople('https://xn--bcher-kva.example/'), 'https://bücher.example/');
  assert.equal(urlForPeople('https://shop.example.com'), 'https://shop.example.com');
  assert.equal(urlForPeople('https://xn--bcher-kva.example:8443/a?b'), 'https://bücher.example:8443/a?b');
  assert.equal(urlForPeople(undefined), undefined);
});

test('a web address offers the hostname in it, as people write it', () => {
  assert.equal(checkHostname('https://Shop.Example.com/about').suggestion, 'shop.example.com');
  assert.equal(checkHostname('shop.example.com/about?x=1').suggestion, 'shop.example.com');
  assert.equal(checkHostname('shop.example.com:8080').suggestion, 'shop.example.com');
  assert.equal(checkHostname('http://xn--bcher-kva.example.com/').suggestion, 'bücher.example.com');
  assert.equal(checkHostname('https://127.0.0.1/').suggestion, undefined);
  assert.equal(checkHostname('https://localhost/').suggestion, undefined);
  assert.equal(checkHostname('shop.example.com').suggestion, undefined);
});

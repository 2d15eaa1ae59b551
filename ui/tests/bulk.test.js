import { test } from 'node:test';
import assert from 'node:assert/strict';
import { durationText, progressText, progressShare, summaryView, refusalOf, refusalMarkup, importValidLabel } from '../lib/bulk.js';

test('durations read like a clock', () => {
  assert.equal(durationText(12), '12s');
  assert.equal(durationText(185), '3m05s');
  assert.equal(durationText(3720), '1h02m');
});

test('progress says how far, how fast and how long is left', () => {
  const progress = { total: 250, answered: 120, rate: 3.2, eta: { secs: 65, nanos: 0 } };
  assert.equal(progressText(progress), "120 of 250 · 3.2 a second · about 1m05s left (the plan's rate limit)");
  assert.equal(progressShare(progress), 0.48);
  assert.equal(progressText({ total: 2, answered: 2, rate: 1, eta: { secs: 0, nanos: 0 } }), '2 of 2 · 1.0 a second');
  // read later, while the import waits for the window, the time left counts down, never below a second
  assert.equal(progressText(progress, 20), "120 of 250 · 3.2 a second · about 45s left (the plan's rate limit)");
  assert.equal(progressText(progress, 600), "120 of 250 · 3.2 a second · about 1s left (the plan's rate limit)");
  assert.equal(progressShare({ total: 0, answered: 0 }), 1);
});

test('the summary counts every outcome and lists the rows that need a look', () => {
  const view = summaryView({
    file: '/tmp/d.csv',
    retry_file: '/tmp/d.csv.failed.csv',
    summary: {
      created: ['a.example.com'],
      already_present: [
        { line: 2, hostname: 'b.example.com', differs: null, added_by_earlier_run: true },
        { line: 3, hostname: 'c.example.com', differs: 'the project has it without a redirect', added_by_earlier_run: false },
      ],
      refused: [{ line: 4, hostname: 'taken.example.com', redirect_to: null, code: 'domain_taken', reason: 'Held by another account.' }],
      unfinished: [],
      stopped: false,
      rate_limited: 0,
    },
  });
  assert.equal(view.headline, 'Import finished: 1 added, 2 already there (1 by an earlier run), 1 refused.');
  assert.equal(view.tone, 'warning');
  assert.deepEqual(view.lines, [
    'Line 4: taken.example.com — Held by another account.',
    'Line 3: c.example.com is there, but the project has it without a redirect',
  ]);
  assert.match(view.retry, /d\.csv\.failed\.csv/);
});

test('a clean import is ok and offers no retry file', () => {
  const view = summaryView({ file: 'x', retry_file: null, summary: { created: ['a'], already_present: [], refused: [], unfinished: [], stopped: false } });
  assert.equal(view.tone, 'ok');
  assert.equal(view.retry, null);
  assert.deepEqual(view.lines, []);
});

// As the window's `domains_import` answers a file of 30 rows with 4 bad ones.
function refusedError(problems = [
  { line: 8, value: 'not a host', message: 'not a valid hostname' },
  { line: 14, value: '*.window.example.com', message: 'wildcard domains cannot be added' },
  { line: 20, value: 'host3.window.example.com', message: 'the file has it already on line 5' },
  { line: 26, value: ',host1.window.example.com', message: 'no hostname' },
], valid = 26) {
  return {
    kind: 'import_refused',
    message: `${problems.length} line(s) cannot be imported: …`,
    refusal: { file: '/home/u/mixed.csv', retry_file: '/home/u/mixed.csv.failed.csv', problems, valid },
  };
}

/** The table's body rows as [line, value, problem], read back from the markup. */
function tableRows(markup) {
  const body = String(markup).match(/<tbody>([\s\S]*)<\/tbody>/)[1];
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row]) => [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, cell]) => cell));
}

test('a refusal is recognised by its kind, other errors are not', () => {
  assert.equal(refusalOf(refusedError()).valid, 26);
  assert.equal(refusalOf({ kind: 'invalid_input', message: 'An import is already running.' }), null);
  assert.equal(refusalOf({ kind: 'import_refused', message: 'x' }), null);
  assert.equal(refusalOf(undefined), null);
});

test('the refusal is a table of line, value and problem, one row per invalid line', () => {
  const markup = String(refusalMarkup(refusalOf(refusedError())));
  assert.match(markup, /<th scope="col">Line<\/th><th scope="col">Value<\/th><th scope="col">Problem<\/th>/);
  assert.deepEqual(tableRows(markup), [
    ['8', 'not a host', 'not a valid hostname'],
    ['14', '*.window.example.com', 'wildcard domains cannot be added'],
    ['20', 'host3.window.example.com', 'the file has it already on line 5'],
    ['26', ',host1.window.example.com', 'no hostname'],
  ]);
  assert.match(markup, /Nothing was imported: 4 rows of mixed\.csv cannot be imported as written\./);
  assert.match(markup, /the 4 other rows go to <span class="mono">\/home\/u\/mixed\.csv\.failed\.csv<\/span>/);
  assert.match(markup, /<button type="button" id="import-valid">Import the 26 valid rows<\/button>/);
  assert.match(markup, /id="import-refusal-close">Close</);
});

test("the button's label counts the valid rows", () => {
  assert.equal(importValidLabel({ valid: 26 }), 'Import the 26 valid rows');
  assert.equal(importValidLabel({ valid: 1 }), 'Import the 1 valid row');
  assert.match(String(refusalMarkup(refusalOf(refusedError(undefined, 3)))), />Import the 3 valid rows</);
});

test('with no valid row there is nothing to offer', () => {
  const markup = String(refusalMarkup(refusalOf(refusedError([{ line: 1, value: '*.a.com', message: 'wildcard' }], 0))));
  assert.doesNotMatch(markup, /import-valid/);
  assert.match(markup, /No row of the file can be imported as written/);
  assert.match(markup, /1 row of mixed\.csv/);
});

test("values from the user's file are escaped, never markup", () => {
  const hostile = '<img src=x onerror=alert(1)>';
  const err = refusedError([{ line: 3, value: hostile, message: `"${hostile}" is not a hostname` }], 2);
  err.refusal.file = `/tmp/${hostile}.csv`;
  err.refusal.retry_file = `/tmp/${hostile}.csv.failed.csv`;
  const markup = String(refusalMarkup(refusalOf(err)));
  assert.doesNotMatch(markup, /<img/);
  assert.deepEqual(tableRows(markup), [[
    '3',
    '&lt;img src=x onerror=alert(1)&gt;',
    '&quot;&lt;img src=x onerror=alert(1)&gt;&quot; is not a hostname',
  ]]);
  assert.match(markup, /&lt;img src=x onerror=alert\(1\)&gt;\.csv\.failed\.csv/);
});

test('after importing the valid rows, the summary counts the ones left out and names them', () => {
  const view = summaryView({
    file: '/home/u/mixed.csv',
    retry_file: '/home/u/mixed.csv.failed.csv',
    summary: {
      created: Array.from({ length: 26 }, (_, i) => `host${i}.window.example.com`),
      already_present: [],
      refused: [],
      unfinished: [],
      skipped: refusedError().refusal.problems,
      stopped: false,
    },
  });
  assert.equal(view.headline, 'Import finished: 26 added, 0 already there, 4 left out as invalid.');
  assert.equal(view.tone, 'warning');
  assert.equal(view.lines[0], 'Line 8: not a host — not a valid hostname');
  assert.equal(view.lines.length, 4);
  assert.match(view.retry, /mixed\.csv\.failed\.csv/);
});

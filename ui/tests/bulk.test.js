import { test } from 'node:test';
import assert from 'node:assert/strict';
import { durationText, progressText, progressShare, summaryView } from '../lib/bulk.js';

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

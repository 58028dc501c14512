'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { statusView } = require('../out/status');

const counts = { graveyard: 3, contradictions: 2, deprioritised: 1, proposals: 1, candidates: 3, silences: 2 };

test('running: project, open contradictions, and proposals with the mined candidates', () => {
  const v = statusView({ state: 'running', project: 'github.com/acme/app', counts });
  assert.equal(v.text, '$(book) Cenotaph: app $(git-compare) 2 $(inbox) 4');
  assert.equal(statusView({ state: 'running', project: 'p', counts: { ...counts, candidates: 0 } }).text,
    '$(book) Cenotaph: p $(git-compare) 2 $(inbox) 1');
  assert.match(v.tooltip, /server: running/);
  assert.match(v.tooltip, /Project: github.com\/acme\/app/);
  assert.match(v.tooltip, /2 open contradictions, 1 pending proposal, 3 candidates from history, 3 abandoned approaches, 1 deprioritised memory, 2 silences$/m);
  assert.equal(v.alert, false);
});

test('starting and failed states say so, without counts', () => {
  assert.equal(statusView({ state: 'starting' }).text, '$(sync~spin) Cenotaph');
  const failed = statusView({ state: 'failed', detail: 'Cenotaph: the language server exited (code 2): boom.' });
  assert.equal(failed.text, '$(error) Cenotaph');
  assert.match(failed.tooltip, /not running \(it exited\)/);
  assert.match(failed.tooltip, /boom/);
  assert.equal(failed.alert, true);
  assert.match(statusView({ state: 'notFound' }).tooltip, /not found/);
});

test('the global scope is named as such', () => {
  assert.match(statusView({ state: 'running', project: '', counts }).text, /Cenotaph: global/);
});

'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('child_process');
const { checkRecall, parseRecall, RECALL_REQUEST, recallParams, recallPicks } = require('../out/recall');
const { schema, validate, privateStore, CENOTAPH } = require('./helpers');

const s = schema('recall');

test('the extension asks the server with params that recall.schema.json accepts', () => {
  assert.equal(RECALL_REQUEST, 'cenotaph/recall');
  const byDocument = recallParams('  how do we deploy  ', { uri: 'file:///work/shop/app.py' }, 20);
  assert.deepEqual(byDocument, { query: 'how do we deploy', k: 20, uri: 'file:///work/shop/app.py' });
  assert.deepEqual(validate(s, s.$defs.recallParams, byDocument), []);
  assert.deepEqual(validate(s, s.$defs.recallParams, recallParams('q', { project: 'acme/shop' }, 5)), []);
  assert.notDeepEqual(validate(s, s.$defs.recallParams, recallParams('q', {}, 5)), [], 'a project or URI is required');
});

test('the command line prints the shape the server answers, and the picks read it', () => {
  const store = privateStore();
  try {
    const run = (...args) => execFileSync(CENOTAPH, [...args], { env: store.env, encoding: 'utf8' });
    run('abandon', '--project', 'acme/shop', '--reason', 'SIGILL on Alpine', 'onnxruntime');
    run('remember', '--project', 'acme/shop', 'The inference session is created once per worker.');
    const response = parseRecall(run('recall', '--json', '--project', 'acme/shop', '--', 'onnxruntime inference session'));
    assert.deepEqual(validate(s, s.$defs.recallResult, response), []);
    const picks = recallPicks(response);
    assert.equal(picks[0].result.result_type, 'abandoned_warning');
    assert.match(picks[0].label, /onnxruntime was abandoned/);
    assert.ok(picks.some((p) => p.result.result_type === 'memory' && /once per worker/.test(p.label)));
  } finally {
    store.cleanup();
  }
});

test('an answer without results is refused, naming where it came from', () => {
  assert.throws(() => checkRecall({ query: 'q' }, 'cenotaph/recall'), /unexpected answer from cenotaph\/recall/);
  assert.throws(() => checkRecall(null, 'cenotaph/recall'), /cenotaph\/recall/);
});

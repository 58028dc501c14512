'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { REASON_COMMANDS, reasonPrompt, withReason } = require('../out/reasons');
const { schema } = require('./helpers');

test('the client asks for a reason exactly where the server would (commands.schema.json)', () => {
  const defs = schema('commands').$defs;
  const asking = Object.entries(defs)
    .filter(([, d]) => /server asks the user/.test(d.properties?.reason?.description ?? ''))
    .map(([name]) => `cenotaph.${name}`);
  assert.deepEqual([...REASON_COMMANDS].sort(), asking.sort());
  assert.ok(!REASON_COMMANDS.includes('cenotaph.showWhy') && !REASON_COMMANDS.includes('cenotaph.remember'));
});

test('the question names the subject; a given reason is not asked again', () => {
  const p = reasonPrompt('cenotaph.silence', { name: 'onnxruntime', scope: 'project', project: 'x' });
  assert.equal(p.prompt, "Why silence 'onnxruntime' in this project?");
  assert.match(reasonPrompt('cenotaph.silence', { name: 'x', scope: 'everywhere' }).prompt, /everywhere\?$/);
  assert.match(reasonPrompt('cenotaph.resolveContradiction', { contradictionId: 3, keep: 'both' }).prompt, /#3 as "both were true"/);
  assert.equal(reasonPrompt('cenotaph.silence', { name: 'x', scope: 'everywhere', reason: 'intended' }), undefined);
  assert.notEqual(reasonPrompt('cenotaph.silence', { name: 'x', scope: 'everywhere', reason: '  ' }), undefined);
  assert.equal(reasonPrompt('cenotaph.showWhy', { approachId: 1 }), undefined);
  assert.equal(reasonPrompt('cenotaph.acceptProposal', { proposalId: 1 }), undefined);
});

test('the reason joins the argument, trimmed, the rest unchanged', () => {
  assert.deepEqual(withReason({ name: 'a', scope: 'everywhere' }, '  works now '), { name: 'a', scope: 'everywhere', reason: 'works now' });
});

test('lifting a silence asks why, naming the name and where it holds', () => {
  assert.match(reasonPrompt('cenotaph.liftSilence', { name: 'celery', kind: 'diagnostic', project: '' }).prompt,
    /^Why lift the silence of 'celery' everywhere\?$/);
  assert.match(reasonPrompt('cenotaph.liftSilence', { name: 'celery', kind: 'diagnostic', project: 'acme/app' }).prompt,
    /in this project\?$/);
});

'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { SELECTORS, selection } = require('../out/review');
const { reasonPrompt } = require('../out/reasons');
const { schema } = require('./helpers');

test('each way to choose candidates is a filter of cenotaph.decideCandidates', () => {
  const properties = schema('commands').$defs.decideCandidates.properties;
  for (const s of SELECTORS) assert.ok(properties[s.key], s.key);
});

test('what the person types becomes the selection, or says what is wrong (nothing is ignored)', () => {
  assert.deepEqual(selection('proposalIds', '13 19 11'), { proposalIds: [13, 19, 11] });
  assert.match(selection('proposalIds', '13 x 11'), /x is not a candidate number/);
  assert.deepEqual(selection('classes', 'dev build'), { classes: ['dev', 'build'] });
  assert.deepEqual(selection('below', '0.5'), { below: 0.5 });
  assert.match(selection('below', '2'), /between 0 and 1/);
  assert.deepEqual(selection('commit', 'a1b2c3d'), { commit: 'a1b2c3d' });
  assert.match(selection('commit', 'main'), /hex/);
  assert.deepEqual(selection('path', ' docs/** '), { path: 'docs/**' });
  assert.match(selection('path', '  '), /Type a value/);
});

test('only a bulk rejection asks for a reason: not its preview, not an acceptance', () => {
  assert.match(reasonPrompt('cenotaph.decideCandidates', { decision: 'reject', proposalIds: [1, 2] }).prompt,
    /Why reject these 2 candidates\?/);
  assert.equal(reasonPrompt('cenotaph.decideCandidates', { decision: 'reject', preview: true, commit: 'abcd' }), undefined);
  assert.equal(reasonPrompt('cenotaph.decideCandidates', { decision: 'accept', proposalIds: [1] }), undefined);
});

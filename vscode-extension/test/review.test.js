'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { EFFORT_PICK, effortItems, KINDS, selectionLines } = require('../out/review');
const { schema } = require('./helpers');

test('the efforts are the schema\'s 1–5, with Skip only where an effort may be left out', () => {
  const s = schema('commands').$defs.setEffort.properties.effort;
  const efforts = effortItems(false).map((i) => i.effort);
  assert.deepEqual(efforts, [1, 2, 3, 4, 5]);
  assert.equal(efforts[0], s.minimum);
  assert.equal(efforts.at(-1), s.maximum);
  const skippable = effortItems(true);
  assert.equal(skippable[0].label, 'Skip');
  assert.equal(skippable[0].effort, undefined);
  assert.match(effortItems(false)[3].description, /leave recall/);  // 4 and up: the domain's automatic silence
  assert.doesNotMatch(effortItems(false)[2].description, /recall/);
  assert.equal(EFFORT_PICK.matchOnDescription, true);  // the words shown are the words matched
});

test('the kinds are cenotaph.remember\'s (commands.schema.json)', () => {
  assert.deepEqual([...KINDS], schema('commands').$defs.remember.properties.kind.enum);
});

test('a selection\'s lines are 1-based; one ending at a line\'s start ends the line before', () => {
  assert.deepEqual(selectionLines(2, 4, 0), { start: 3, end: 4 });
  assert.deepEqual(selectionLines(2, 4, 5), { start: 3, end: 5 });
  assert.deepEqual(selectionLines(2, 2, 0), { start: 3, end: 3 });  // an empty line's start: still that line
  assert.deepEqual(selectionLines(0, 0, 9), { start: 1, end: 1 });
});

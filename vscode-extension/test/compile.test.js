'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const pkg = require('../package.json');
const { TARGETS, diffTitle, draftPath, proposalOf } = require('../out/compileModel');
const { schema } = require('./helpers');

test('the compile targets are the schema\'s', () => {
  assert.deepEqual(TARGETS.map((t) => t.target), schema('compile').$defs.target.enum);
});

test('a draft URI names its proposal, a new file\'s base is told apart', () => {
  const draft = draftPath(12, '.claude/skills/http-client/SKILL.md');
  assert.deepEqual(draft, { path: '/12/.claude/skills/http-client/SKILL.md', query: '' });
  assert.equal(proposalOf(draft.path), 12);
  assert.equal(draftPath(12, 'AGENTS.md', true).query, 'base');
  assert.equal(proposalOf('/AGENTS.md'), undefined);
  const sha = 'a'.repeat(64);
  assert.equal(diffTitle(3, { path: 'ruff.toml', baseSha256: 'absent', draft: 'x' }), 'Cenotaph proposal #3: ruff.toml (new file)');
  assert.equal(diffTitle(3, { path: 'ruff.toml', baseSha256: sha, draft: 'x' }), 'Cenotaph proposal #3: ruff.toml (current ↔ draft)');
  assert.equal(diffTitle(3, { path: 'a/SKILL.md', baseSha256: sha, draft: null }), 'Cenotaph proposal #3: a/SKILL.md (deleted)');
});

test('Accept and Reject sit in the title of a draft\'s diff; the code action\'s command stays out of the palette', () => {
  const title = pkg.contributes.menus['editor/title'];
  for (const id of ['cenotaph.acceptCompile', 'cenotaph.rejectCompile']) {
    assert.ok(title.some((m) => m.command === id && m.when === 'resourceScheme == cenotaph-draft'), id);
  }
  const hidden = pkg.contributes.menus.commandPalette.find((m) => m.command === 'cenotaph.proposeUpdate');
  assert.equal(hidden.when, 'false');
  assert.ok(!schema('commands').properties.command.enum.includes('cenotaph.proposeUpdate'), 'a client command');
});

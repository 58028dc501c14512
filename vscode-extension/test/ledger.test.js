'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { execFileSync } = require('child_process');
const { parseLedger, shortProject } = require('../out/ledger');
const { sections, entryView, itemCommand, ITEM_ACTIONS } = require('../out/treeModel');
const { schema, validate, privateStore, PYTHON } = require('./helpers');

// One real ledger, rendered by the server's own code over a fresh store (test/fixtures/ledger_fixture.py).
let fixture;
test.before(() => {
  const store = privateStore();
  try {
    const out = execFileSync(PYTHON, [path.join(__dirname, 'fixtures', 'ledger_fixture.py'), path.join(store.dir, 'c.db')],
      { env: store.env, encoding: 'utf8' });
    fixture = JSON.parse(out);
  } finally {
    store.cleanup();
  }
});

test('the fixture is a ledger result as ledger.schema.json defines it', () => {
  const s = schema('ledger');
  const { expect, ...result } = fixture;
  assert.deepEqual(validate(s, s.$defs.result, result), []);
  assert.equal(expect.contradiction.found, 1, 'the two memories were found to contradict');
});

test('the tree lists the server ledger: graveyard, contradictions, proposals, candidates, deprioritised, silences', () => {
  const parsed = parseLedger(fixture.text, fixture.project);
  const tree = sections(parsed, fixture.counts);
  assert.deepEqual(tree.map((s) => s.label),
    ['Graveyard', 'Open contradictions', 'Pending proposals', 'Candidates from history', 'Deprioritised memories', 'Silences']);
  assert.deepEqual(tree.map((s) => s.count), [3, 1, 1, 1, 1, 2]);
  assert.deepEqual(tree.map((s) => s.entries.length), [3, 1, 1, 1, 1, 2]);

  const [leftPad, onnx, moment] = parsed.graveyard;
  assert.deepEqual([onnx.id, leftPad.id].sort(), [...fixture.expect.approaches].sort());
  assert.equal(onnx.displayName, 'onnxruntime');
  assert.equal(onnx.ecosystem, 'pypi');
  assert.equal(onnx.project, fixture.project, 'abandoned here: the project graveyard');
  assert.equal(onnx.effort, 4);
  assert.equal(onnx.reason, 'SIGILL crash on Alpine | musl libc');
  assert.equal(leftPad.project, '', 'abandoned everywhere: the global graveyard');
  assert.equal(leftPad.effort, undefined);
  assert.equal(leftPad.shared, undefined);
  assert.equal(onnx.shared, 'mine', 'the person shared it: one entry, with the mark');
  assert.equal(onnx.sharedPath, fixture.expect.sharedPath);
  assert.equal(onnx.actor, 'vscode');
  assert.equal(moment.displayName, 'moment', 'a teammate\'s entry is named plainly, no raw asterisks');
  assert.equal(moment.shared, 'team');
  assert.equal(moment.sharedBy, 'Grace Hopper');
  assert.equal(moment.date, '2026-02-01');
  assert.equal(moment.reason, 'Unmaintained since 2020');
  assert.equal(parsed.graveyard.filter((a) => a.displayName === 'onnxruntime').length, 1, 'one entry per name');

  const [requests, onnxRecall] = parsed.silences;
  assert.equal(requests.id, fixture.expect.silence);
  assert.equal(requests.name, 'requests');
  assert.equal(requests.silenced, 'diagnostic');
  assert.equal(requests.project, fixture.project, 'silenced here');
  assert.equal(requests.reason, 'vendored | on purpose');
  assert.equal(onnxRecall.silenced, 'recall', 'effort 4 keeps its memories out of recall');

  const [c] = parsed.contradictions;
  assert.equal(c.memoryA, fixture.expect.contradiction.a);
  assert.equal(c.memoryB, fixture.expect.contradiction.b);
  assert.match(c.contentA, /^Prefer SQLAlchemy/);
  assert.match(c.contentB, /drop it\.$/);
  assert.match(c.explanation, /opposite in polarity/);

  const [m] = parsed.deprioritised;
  assert.equal(m.id, fixture.expect.deprioritised);
  assert.equal(m.content, 'The staging cluster runs on spot instances.');
  assert.equal(m.why, 'rarely relevant');
  assert.equal(m.reinstateWhen, 'staging');

  const [p] = parsed.proposals;
  assert.equal(p.id, fixture.expect.proposal);
  assert.match(p.summary, /proposes to refute memory/);
  assert.equal(p.reason, 'the runners were decommissioned');

  const [candidate] = parsed.candidates;
  assert.equal(candidate.id, fixture.expect.candidate);
  assert.equal(candidate.name, 'pandas');
  assert.equal(candidate.ecosystem, 'pypi');
  assert.equal(candidate.confidence, 0.8);
  assert.equal(candidate.replacement, 'polars');
  assert.equal(candidate.reason, 'rejected in a Claude Code session on 2026-03-02: "no, don\'t add pandas, we use polars"');
  assert.match(candidate.evidence, /^claude · rejected · 2026-03-02 · s1\/u1\/t1 — no, don't add pandas/);
  assert.equal(parsed.proposals.length, 1, 'a candidate is not listed as an agent proposal');

  // Each entry's line is the one the server's code actions read for that entry.
  const lines = fixture.text.split('\n');
  for (const entry of [onnx, leftPad, moment, c, m, p, candidate, ...parsed.silences]) assert.ok(lines[entry.line].includes(`${entry.kind} #${entry.id}`));
});

test('rows show what a person needs at a glance', () => {
  const parsed = parseLedger(fixture.text, fixture.project);
  const onnx = parsed.graveyard.find((a) => a.displayName === 'onnxruntime');
  const view = entryView(onnx);
  assert.equal(view.label, 'onnxruntime');
  assert.match(view.description, /SIGILL/);
  assert.match(view.tooltip, /effort 4\/5/);
  assert.equal(entryView(parsed.graveyard.find((a) => a.displayName === 'left-pad')).contextValue, 'approach');
  assert.match(entryView(parsed.contradictions[0]).label, /Prefer SQLAlchemy.*↔.*SQLAlchemy sessions/);
  assert.equal(entryView(parsed.proposals[0]).contextValue, 'proposal');
  assert.equal(entryView(parsed.deprioritised[0]).label, 'The staging cluster runs on spot instances.');
  const shared = entryView(onnx);
  assert.equal(shared.contextValue, 'approach.mine');
  assert.match(shared.description, /^shared · SIGILL/);
  assert.match(shared.tooltip, /Shared in the repository \(\.cenotaph\/graveyard\/pypi\/onnxruntime\.toml\)/);
  const team = entryView(parsed.graveyard.find((a) => a.displayName === 'moment'));
  assert.equal(team.contextValue, 'approach.team');
  assert.match(team.tooltip, /Shared in the repository by Grace Hopper/);
  const silence = entryView(parsed.silences[0]);
  assert.equal(silence.label, 'requests');
  assert.equal(silence.description, 'not flagged in editors · here');
  assert.equal(silence.contextValue, 'silence');
});

test('the view\'s context menu offers each action on the entries it applies to (package.json when clauses)', () => {
  const pkg = require('../package.json');
  const parsed = parseLedger(fixture.text, fixture.project);
  // The when clauses use `viewItem == x` and `viewItem =~ /re/`, joined by &&.
  const offered = (command, contextValue) => pkg.contributes.menus['view/item/context'].some((m) => m.command === command
    && m.when.split(' && ').every((clause) => {
      const eq = /^viewItem == (\S+)$/.exec(clause);
      const re = /^viewItem =~ \/(.+)\/$/.exec(clause);
      return eq ? eq[1] === contextValue : re ? new RegExp(re[1]).test(contextValue) : clause === 'view == cenotaph.view';
    }));
  const entries = [...parsed.graveyard, ...parsed.contradictions, ...parsed.proposals, ...parsed.candidates,
    ...parsed.deprioritised, ...parsed.silences];
  for (const entry of entries) {
    const contextValue = entryView(entry).contextValue;
    for (const action of ITEM_ACTIONS) {
      const applies = itemCommand(action, entry, fixture.project) !== undefined;
      assert.equal(offered(`cenotaph.item.${action}`, contextValue), applies, `${action} on ${contextValue} #${entry.id}`);
    }
  }
  // Positive control: a teammate's entry is not the person's to reinstate, and the menu agrees.
  assert.equal(offered('cenotaph.item.reinstateApproach', 'approach.team'), false);
  assert.equal(offered('cenotaph.item.reinstateApproach', 'approach'), true);
});

test('every context-menu action sends an argument the server accepts (commands.schema.json)', () => {
  const s = schema('commands');
  const parsed = parseLedger(fixture.text, fixture.project);
  const entries = [...parsed.graveyard, ...parsed.contradictions, ...parsed.proposals, ...parsed.candidates,
    ...parsed.deprioritised, ...parsed.silences];
  let checked = 0;
  for (const action of ITEM_ACTIONS) {
    const applicable = entries.map((e) => itemCommand(action, e, fixture.project)).filter(Boolean);
    assert.ok(applicable.length > 0, `${action} applies to some entry`);
    for (const { command, argument } of applicable) {
      assert.deepEqual(validate(s, s, { command, arguments: [argument] }), [], `${action} → ${command}`);
      checked++;
    }
  }
  assert.ok(checked >= ITEM_ACTIONS.length);
  // Positive control for the validator: a silence in a project without the project is refused.
  assert.notDeepEqual(validate(s, s, { command: 'cenotaph.silence', arguments: [{ name: 'x', scope: 'project' }] }), []);
  assert.notDeepEqual(validate(s, s, { command: 'cenotaph.reinstate', arguments: [{ name: 'x', project: 'p', extra: 1 }] }), []);
  const onnx = parsed.graveyard.find((a) => a.displayName === 'onnxruntime');
  assert.deepEqual(itemCommand('reinstateApproach', onnx, fixture.project),
    { command: 'cenotaph.reinstate', argument: { name: 'onnxruntime', project: fixture.project } });
  assert.equal(itemCommand('acceptProposal', onnx, fixture.project), undefined, 'actions only apply to their kind');
  const [candidate] = parsed.candidates;
  assert.deepEqual(itemCommand('editCandidate', candidate, fixture.project),
    { command: 'cenotaph.acceptCandidate', argument: { proposalId: candidate.id, draft: candidate.reason } });
  assert.equal(entryView(candidate).contextValue, 'candidate');
  const [requests] = parsed.silences;
  assert.deepEqual(itemCommand('liftSilence', requests, fixture.project),
    { command: 'cenotaph.liftSilence', argument: { name: 'requests', kind: 'diagnostic', project: fixture.project } });
  assert.deepEqual(itemCommand('stopSharing', onnx, fixture.project),
    { command: 'cenotaph.unshare', argument: { path: fixture.expect.sharedPath, project: fixture.project } });
  assert.deepEqual(itemCommand('stopSharing', parsed.graveyard.find((a) => a.displayName === 'moment'), fixture.project),
    { command: 'cenotaph.unshare', argument: { name: 'moment', project: fixture.project } });
  assert.equal(itemCommand('stopSharing', parsed.graveyard.find((a) => a.displayName === 'left-pad'), fixture.project), undefined,
    'an entry that is not shared cannot be unshared');
});

test('an empty ledger has empty sections; unexpected entry lines are still listed', () => {
  const empty = '# Cenotaph ledger · global scope\n\n## Graveyard (0)\n\n_none_\n\n## Open contradictions (0)\n\n_none_\n';
  assert.deepEqual(sections(parseLedger(empty, '')).map((s) => s.count), [0, 0, 0, 0, 0, 0]);
  const odd = parseLedger('## Graveyard (1)\n\n- approach #7 · something new — because\n', 'p');
  assert.equal(odd.graveyard[0].id, 7);
  assert.equal(odd.graveyard[0].displayName, 'something new');
  assert.equal(odd.graveyard[0].reason, 'because');
});

test('project names are shortened for the status bar', () => {
  assert.equal(shortProject('github.com/acme/app'), 'app');
  assert.equal(shortProject('/home/me/work/cenotaph'), 'cenotaph');
  assert.equal(shortProject('git@github.com:acme/app.git'), 'app');
  assert.equal(shortProject(''), 'global');
});

'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { CHECKOUT_FILE, cliArgv, exitMessage, expand, findOnPath, fromSetting, NOT_FOUND, readCheckout, resolveServerCommand, Tail } = require('../out/serverCommand');
const { parseRecall, recallPicks, memoryMarkdown } = require('../out/recall');
const { CENOTAPH, VENV_BIN, privateStore } = require('./helpers');

function tempBin(names) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cenotaph-bin-'));
  for (const name of names) {
    fs.writeFileSync(path.join(dir, name), '#!/bin/sh\nexit 0\n');
    fs.chmodSync(path.join(dir, name), 0o755);
  }
  return dir;
}

test('the setting: empty is automatic, a string is the executable, an array the whole command line', () => {
  assert.equal(fromSetting(''), undefined);
  assert.equal(fromSetting([]), undefined);
  assert.equal(fromSetting(undefined), undefined);
  assert.deepEqual(fromSetting('/opt/bin/cenotaph'), ['/opt/bin/cenotaph', 'serve']);
  assert.deepEqual(fromSetting(['${workspaceFolder}/.venv/bin/python', '-m', 'cenotaph.cli', 'serve'], '/w'),
    ['/w/.venv/bin/python', '-m', 'cenotaph.cli', 'serve']);
  assert.equal(expand('~/bin/cenotaph'), path.join(os.homedir(), 'bin/cenotaph'));
  assert.match(fromSetting([1, 2]).problem, /list of strings/);
  assert.match(fromSetting(42).problem, /cenotaph.server.command/);
});

test('PATH lookup finds executables only', () => {
  const bin = tempBin(['cenotaph']);
  fs.writeFileSync(path.join(bin, 'notexec'), 'x');
  try {
    assert.equal(findOnPath('cenotaph', { PATH: `/nonexistent:${bin}` }, 'linux'), path.join(bin, 'cenotaph'));
    assert.equal(findOnPath('notexec', { PATH: bin }, 'linux'), undefined);
    assert.equal(findOnPath('cenotaph', { PATH: '/nonexistent' }, 'linux'), undefined);
  } finally {
    fs.rmSync(bin, { recursive: true });
  }
});

test('order: the setting, then cenotaph on PATH, then the checkout it was built in, then the Python extension interpreter', async () => {
  const bin = tempBin(['cenotaph', 'python3']);
  const python = path.join(bin, 'python3');
  try {
    const viaSetting = await resolveServerCommand({ setting: path.join(bin, 'cenotaph'), env: { PATH: '' } });
    assert.deepEqual(viaSetting, { argv: [path.join(bin, 'cenotaph'), 'serve'], source: 'setting' });
    const viaPath = await resolveServerCommand({ setting: '', env: { PATH: bin }, pythonInterpreter: async () => python });
    assert.deepEqual(viaPath, { argv: [path.join(bin, 'cenotaph'), 'serve'], source: 'path' });
    const viaPython = await resolveServerCommand({ setting: '', env: { PATH: '/nonexistent' }, pythonInterpreter: async () => python, hasCenotaph: async () => true });
    assert.deepEqual(viaPython, { argv: [python, '-m', 'cenotaph.cli', 'serve'], source: 'python' });
    // A package built by `make vsix` knows its checkout's server: after PATH, before the Python extension.
    const checkout = path.join(bin, 'cenotaph');
    const viaCheckout = await resolveServerCommand({ setting: '', env: { PATH: '/nonexistent' }, checkout, pythonInterpreter: async () => python });
    assert.deepEqual(viaCheckout, { argv: [checkout, 'serve'], source: 'checkout' });
    const pathFirst = await resolveServerCommand({ setting: '', env: { PATH: bin }, checkout: '/elsewhere/cenotaph' });
    assert.equal(pathFirst.source, 'path');
    const gone = await resolveServerCommand({ setting: '', env: { PATH: '/nonexistent' }, checkout: path.join(bin, 'missing'), pythonInterpreter: async () => python, hasCenotaph: async () => true });
    assert.equal(gone.source, 'python', 'a checkout that has no server any more is skipped');
  } finally {
    fs.rmSync(bin, { recursive: true });
  }
});

test('the checkout a package was built in is read from its checkout.json, an absolute path only', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cenotaph-checkout-'));
  try {
    assert.equal(readCheckout(dir), undefined, 'no file: a package from elsewhere');
    fs.writeFileSync(path.join(dir, CHECKOUT_FILE), JSON.stringify({ cenotaph: '/src/cenotaph/.venv/bin/cenotaph' }));
    assert.equal(readCheckout(dir), '/src/cenotaph/.venv/bin/cenotaph');
    fs.writeFileSync(path.join(dir, CHECKOUT_FILE), JSON.stringify({ cenotaph: 'relative/cenotaph' }));
    assert.equal(readCheckout(dir), undefined);
    fs.writeFileSync(path.join(dir, CHECKOUT_FILE), '{not json');
    assert.equal(readCheckout(dir), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

test('when nothing works the message says what to do', async () => {
  const none = await resolveServerCommand({ setting: '', env: { PATH: '/nonexistent' } });
  assert.equal(none.problem, NOT_FOUND);
  assert.match(none.problem, /pip install cenotaph/);
  assert.match(none.problem, /cenotaph\.server\.command/);
  const noModule = await resolveServerCommand({ setting: '', env: { PATH: '/nonexistent' }, pythonInterpreter: async () => '/usr/bin/python3', hasCenotaph: async () => false });
  assert.match(noModule.problem, /\/usr\/bin\/python3 cannot import it|\(\/usr\/bin\/python3\) cannot import it/);
  assert.match(noModule.problem, /\/usr\/bin\/python3 -m pip install cenotaph/);
  const missing = await resolveServerCommand({ setting: '/nonexistent/cenotaph', env: { PATH: '' } });
  assert.match(missing.problem, /`\/nonexistent\/cenotaph`, which is not an executable file/);
  assert.equal(missing.source, 'setting');
});

test('the real cenotaph of the project venv is found on PATH', async () => {
  const real = await resolveServerCommand({ setting: '', env: { PATH: VENV_BIN } });
  assert.deepEqual(real, { argv: [CENOTAPH, 'serve'], source: 'path' });
});

test('stderr tail and exit message name the cause', () => {
  const tail = new Tail(3);
  tail.push('INFO starting\ncenotaph: error: the store schema is newer than this cenotaph\n');
  tail.push('partial line without newline');
  assert.equal(tail.reason(), 'cenotaph: error: the store schema is newer than this cenotaph');
  const plain = new Tail();
  plain.push('one\ntwo\n');
  assert.equal(plain.reason(), 'two');
  assert.equal(exitMessage(2, null, 'cenotaph: error: x'),
    'Cenotaph: the language server exited (code 2): cenotaph: error: x. Diagnostics and commands are off until it runs again.');
  assert.match(exitMessage(null, 'SIGKILL', undefined), /was killed \(SIGKILL\)\. /);
});

test('recall runs the same program with `serve` replaced, and its JSON becomes quick pick rows', () => {
  assert.deepEqual(cliArgv(['/p/python', '-m', 'cenotaph.cli', 'serve'], ['recall', '--json', 'q']), ['/p/python', '-m', 'cenotaph.cli', 'recall', '--json', 'q']);
  assert.deepEqual(cliArgv(['/b/cenotaph', 'serve', '--db', 'x.db'], ['recall', 'q']), ['/b/cenotaph', 'recall', 'q', '--db', 'x.db']);
  assert.equal(cliArgv(['/wrapper.sh'], ['recall']), undefined);

  const store = privateStore();
  try {
    const run = (args) => execFileSync(...(() => { const a = cliArgv([CENOTAPH, 'serve'], args); return [a[0], a.slice(1)]; })(), { env: store.env, encoding: 'utf8' });
    run(['abandon', '--project', 'acme', '--reason', 'SIGILL crash on Alpine', '--effort', '3', 'onnxruntime']);
    run(['remember', '--project', 'acme', 'The embedding model runs on the CPU with fastembed instead of onnxruntime-gpu wheels.']);
    run(['remember', '--project', 'other', 'The billing service deploys on Fridays.']);
    const response = parseRecall(run(['recall', '--json', '--project', 'acme', '-k', '5', '--', 'onnxruntime embedding model']));
    const picks = recallPicks(response);
    assert.equal(picks[0].result.result_type, 'abandoned_warning', 'the graveyard comes first');
    assert.equal(picks[0].label, '$(circle-slash) onnxruntime was abandoned');
    assert.match(picks[0].description, /effort 3\/5/);
    const memory = picks.find((p) => p.result.result_type === 'memory');
    assert.ok(memory, 'a memory was recalled');
    assert.match(memory.label, /fastembed/);
    assert.ok(!picks.some((p) => /billing/.test(p.label)), 'another project stays out');
    const page = memoryMarkdown(memory.result);
    assert.match(page, new RegExp(`^# Memory #${memory.result.id}\\n\\nThe embedding model runs on the CPU`));
    assert.match(page, /- project: acme/);
  } finally {
    store.cleanup();
  }
});

'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { execFileSync } = require('child_process');
const { FILE_KIND_PATTERNS, documentSelector, LEDGER_SCHEME } = require('../out/fileKinds');
const { schema, PYTHON } = require('./helpers');

// Real names of each kind, and names the server does not scan (the negative controls).
const SAMPLES = [
  '/w/app.py', '/w/stubs/mod.pyi', '/w/src/index.ts', '/w/web/App.tsx', '/w/lib/util.mjs', '/w/main.go', '/w/src/lib.rs',
  '/w/requirements.txt', '/w/requirements-dev.txt', '/w/dev-requirements.in', '/w/constraints.txt', '/w/requirements/base.txt',
  '/w/pyproject.toml', '/w/package.json', '/w/Cargo.toml', '/w/go.mod', '/w/Dockerfile', '/w/Dockerfile.prod',
  '/w/build.dockerfile', '/w/Containerfile', '/w/README.md', '/w/docs/notes.markdown', '/w/AGENTS.md', '/w/CLAUDE.md',
  '/w/.cursorrules', '/w/.github/copilot-instructions.md',
  '/w/setup.py', '/w/pkg/setup.cfg', '/w/tox.ini', '/w/.pre-commit-config.yaml', '/w/.pre-commit-config.yml',
  '/w/pytest.ini', '/w/.pre-commit-hooks.yaml', '/w/docs/index.rst', '/w/docs/notes.txt', '/w/README',
  '/w/notes.txt', '/w/setup.txt', '/w/Makefile', '/w/package-lock.json', '/w/go.sum', '/w/data.json', '/w/image.png',
];

function serverKinds(paths) {
  const code = 'import json,sys\nfrom cenotaph.nlp.ecosystems import document_kind\nprint(json.dumps([document_kind(p) for p in json.loads(sys.argv[1])]))';
  return JSON.parse(execFileSync(PYTHON, ['-c', code, JSON.stringify(paths)], { encoding: 'utf8' }));
}

function selectorKinds(file) {
  return Object.entries(FILE_KIND_PATTERNS).filter(([, patterns]) => patterns.some((p) => path.matchesGlob(file, p))).map(([k]) => k);
}

test('there are patterns for every file kind in settings.schema.json', () => {
  assert.deepEqual(Object.keys(FILE_KIND_PATTERNS).sort(), [...schema('settings').$defs.fileKind.enum].sort());
});

test('the selector sends the server exactly the documents it scans (checked against document_kind)', () => {
  const kinds = serverKinds(SAMPLES);
  const scanned = SAMPLES.filter((_, i) => kinds[i] !== null);
  assert.ok(scanned.length >= 20 && scanned.length < SAMPLES.length, 'both scanned and unscanned samples');
  SAMPLES.forEach((file, i) => {
    const matched = selectorKinds(file);
    if (kinds[i] === null) {
      assert.deepEqual(matched, [], `${file} is not scanned by the server, so not sent`);
    } else if (['instructions', 'setup_py', 'requirements'].includes(kinds[i])) {  // a more specific kind of a broader pattern
      assert.ok(matched.includes(kinds[i]), `${file} is ${kinds[i]} (matched ${matched})`);
    } else {
      assert.deepEqual(matched, [kinds[i]], `${file} is ${kinds[i]}`);
    }
  });
});

test('the selector covers files on disk and the ledger documents', () => {
  const selector = documentSelector();
  assert.ok(selector.every((f) => f.scheme === 'file' || f.scheme === LEDGER_SCHEME));
  assert.deepEqual(selector.filter((f) => f.scheme === LEDGER_SCHEME), [{ scheme: 'cenotaph' }]);
  assert.equal(selector.filter((f) => f.scheme === 'file').length, Object.values(FILE_KIND_PATTERNS).flat().length);
});

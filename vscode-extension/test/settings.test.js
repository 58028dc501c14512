'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { generate, load } = require('../scripts/gen-config');
const { serverKeys, serverSettings, needsRestart } = require('../out/settings');
const pkg = require('../package.json');
const fs = require('fs');
const path = require('path');
const { EXT, schema, validate } = require('./helpers');

const contributed = pkg.contributes.configuration.properties;

test('package.json contributes exactly the configuration generated from settings.schema.json', () => {
  assert.deepEqual(pkg.contributes.configuration, generate(load()));
});

test('every server setting in the schema is contributed with its default, enum and bounds', () => {
  const s = schema('settings');
  const defs = s.$defs;
  for (const [key, node] of Object.entries(s.properties)) {
    if (node.type === 'object') {
      for (const [sub, subNode] of Object.entries(node.properties)) {
        const c = contributed[`cenotaph.${key}.${sub}`];
        assert.ok(c, `cenotaph.${key}.${sub} is contributed`);
        const resolved = subNode.$ref ? defs[subNode.$ref.replace('#/$defs/', '')] : subNode;
        assert.deepEqual(c.default, subNode.default);
        assert.deepEqual(c.enum, resolved.enum);
        assert.equal(c.type, resolved.type ?? 'string');
        for (const bound of ['minimum', 'maximum']) assert.equal(c[bound], resolved[bound]);
      }
    } else {
      const c = contributed[`cenotaph.${key}`];
      assert.ok(c, `cenotaph.${key} is contributed`);
      assert.deepEqual(c.default, node.default);
      assert.equal(c.type, node.type);
      for (const bound of ['minimum', 'maximum', 'uniqueItems']) assert.equal(c[bound], node[bound]);
    }
  }
  assert.deepEqual(contributed['cenotaph.fileKinds'].items.enum, defs.fileKind.enum);
});

test('the server is sent the schema keys only, nested as the schema has them', () => {
  const keys = serverKeys(contributed);
  assert.ok(!keys.some((k) => k.startsWith('server.') || k.startsWith('trace.')), 'client-only settings stay in the editor');
  assert.ok(keys.includes('severity.project') && keys.includes('maxFileSize'));
  const defaults = Object.fromEntries(Object.entries(contributed).map(([k, v]) => [k.slice('cenotaph.'.length), v.default]));
  const sent = serverSettings(keys, (key) => defaults[key]);
  assert.deepEqual(Object.keys(sent).sort(), Object.keys(schema('settings').properties).sort());
  assert.deepEqual(validate(schema('settings'), schema('settings'), sent), []);
  assert.equal(sent.severity.project, 'warning');
  assert.equal(sent.severity.global, 'information');
  assert.equal(sent.maxFileSize, 2000000);
});

test('a changed value is sent as the user set it; unset keys are left out', () => {
  const sent = serverSettings(['severity.project', 'severity.mention', 'otherProjects', 'fileKinds'],
    (key) => ({ 'severity.project': 'error', otherProjects: true, fileKinds: ['python'] })[key]);
  assert.deepEqual(sent, { severity: { project: 'error' }, otherProjects: true, fileKinds: ['python'] });
});

test('only the server command needs a restart', () => {
  assert.equal(needsRestart((s) => s === 'cenotaph.server' || s === 'cenotaph'), true);
  assert.equal(needsRestart((s) => s === 'cenotaph.severity' || s === 'cenotaph'), false);
});

// The README's settings table, as a person reads it: `cenotaph.x` | default | meaning.
function readmeSettings(text) {
  const rows = [...text.matchAll(/^\| `(cenotaph\.[A-Za-z.]+)` \| (.*?) \| (.*) \|$/gm)];
  return rows.map(([, key, cell]) => {
    const values = [...cell.matchAll(/`([^`]*)`/g)].map((m) => m[1]);
    const literal = (v) => { try { return JSON.parse(v); } catch { return v; } };
    // `all`: every value the setting's items allow; several backticked values: a list.
    const value = cell === 'all' ? 'all' : values.length > 1 ? values : literal(values[0]);
    return { key, value };
  });
}

test('every setting the README documents is contributed with its type, default and enum, and every contributed one is documented', () => {
  const readme = fs.readFileSync(path.join(EXT, 'README.md'), 'utf8');
  const documented = readmeSettings(readme);
  assert.ok(documented.length >= 13, `the table has rows (${documented.length})`);
  assert.deepEqual(documented.map((d) => d.key).sort(), Object.keys(contributed).sort());
  for (const { key, value } of documented) {
    const c = contributed[key];
    if (value === 'all') {
      assert.deepEqual(c.default, c.items.enum, `${key}: the default is every kind`);
      continue;
    }
    assert.deepEqual(c.default, value, `${key}: the README's default is package.json's`);
    const type = Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? ['integer', 'number'] : ['number']) : typeof value;
    assert.ok([].concat(c.type).some((t) => [].concat(type).includes(t)), `${key}: a ${c.type} setting, documented as ${JSON.stringify(value)}`);
    if (c.enum) assert.ok(c.enum.includes(value), `${key}: the default is one of its values`);
  }
  const severities = /Severities are (.*?)\./.exec(readme)[1].match(/`([^`]+)`/g).map((v) => v.slice(1, -1));
  for (const key of Object.keys(contributed).filter((k) => k.startsWith('cenotaph.severity.'))) {
    assert.deepEqual(contributed[key].enum, severities, `${key}: the values the README lists`);
  }
});

test('the README table reader catches a wrong default, a missing row and an unknown row (positive controls)', () => {
  const row = (key, cell) => `| \`${key}\` | ${cell} | x |`;
  assert.deepEqual(readmeSettings(row('cenotaph.severity.project', '`error`')), [{ key: 'cenotaph.severity.project', value: 'error' }]);
  assert.notDeepEqual(readmeSettings(row('cenotaph.severity.project', '`error`'))[0].value, contributed['cenotaph.severity.project'].default);
  assert.deepEqual(readmeSettings(row('cenotaph.maxFileSize', '`2000000`'))[0].value, 2000000);
  assert.deepEqual(readmeSettings(row('cenotaph.otherProjects', '`false`'))[0].value, false);
  assert.deepEqual(readmeSettings(row('cenotaph.documents.include', '`a`, `b`'))[0].value, ['a', 'b']);
  const keys = readmeSettings([row('cenotaph.mine.onOpen', '`false`'), row('cenotaph.nope', '`1`')].join('\n')).map((d) => d.key);
  assert.notDeepEqual(keys.sort(), Object.keys(contributed).sort());
});

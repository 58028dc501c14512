'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { generate, load } = require('../scripts/gen-config');
const { serverKeys, serverSettings, needsRestart } = require('../out/settings');
const pkg = require('../package.json');
const { schema, validate } = require('./helpers');

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

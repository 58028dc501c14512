'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { isEndpointReport, mcpClientConfig, detectMcpApi, mcpDefinition, MCP_PROVIDER_ID } = require('../out/endpoint');
const { schema, validate } = require('./helpers');
const pkg = require('../package.json');

const report = { url: 'http://127.0.0.1:49152/mcp', token: 'a'.repeat(40), project: 'github.com/acme/app' };

test('endpoint reports are checked as endpoint.schema.json says', () => {
  const s = schema('endpoint');
  assert.deepEqual(validate(s, s, report), []);
  assert.equal(isEndpointReport(report), true);
  const bad = [{ ...report, url: 'http://example.com/mcp' }, { ...report, token: 'short' }, { url: report.url, token: report.token }, null];
  for (const value of bad) {
    assert.equal(isEndpointReport(value), false, JSON.stringify(value));
    if (value) assert.notDeepEqual(validate(s, s, value), [], 'the schema refuses it too');
  }
});

test('Copy MCP Endpoint gives an MCP client entry with the bearer token', () => {
  const config = JSON.parse(mcpClientConfig(report));
  assert.deepEqual(config, { servers: { cenotaph: { type: 'http', url: report.url, headers: { Authorization: `Bearer ${report.token}` } } } });
});

test('the MCP API is used only where VS Code has it (1.100 does not)', () => {
  assert.equal(detectMcpApi({ version: '1.100.3', lm: {} }, String), undefined);
  assert.equal(detectMcpApi({ lm: { registerMcpServerDefinitionProvider() {} } }, String), undefined, 'no definition class');
  const registered = [];
  class McpHttpServerDefinition { constructor(label, uri, headers, version) { Object.assign(this, { label, uri, headers, version }); } }
  const ns = { lm: { registerMcpServerDefinitionProvider(id, provider) { registered.push([this, id, provider]); return { dispose() {} }; } }, McpHttpServerDefinition };
  const api = detectMcpApi(ns, (url) => ({ parsed: url }));
  api.register(MCP_PROVIDER_ID, 'provider');
  assert.deepEqual(registered, [[ns.lm, 'cenotaph.mcp', 'provider']]);
  const { label, url, headers } = mcpDefinition(report);
  const definition = api.definition(label, url, headers, '0.1.0');
  assert.deepEqual({ ...definition }, { label: 'Cenotaph (app)', uri: { parsed: report.url }, headers: { Authorization: `Bearer ${report.token}` }, version: '0.1.0' });
  // 1.101+ reads the stable contribution point, 1.100's proposal the older one: both name the provider.
  assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders.map((p) => p.id), [MCP_PROVIDER_ID]);
  assert.deepEqual(pkg.contributes.modelContextServerCollections.map((p) => p.id), [MCP_PROVIDER_ID]);
});

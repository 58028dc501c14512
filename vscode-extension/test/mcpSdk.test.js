'use strict';
// The TypeScript MCP SDK's client on the real `cenotaph mcp` (the repository's .venv): the tools,
// resources, resource templates and prompts it lists, and a subscribed resource's update after
// another process writes to the store.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { ResourceUpdatedNotificationSchema } = require('@modelcontextprotocol/sdk/types.js');

const CENOTAPH = path.resolve(__dirname, '..', '..', '.venv', 'bin', 'cenotaph');
const PROJECT = 'example.org/acme/ts-agent';

// A `cenotaph mcp` over stdio in a fresh npm workspace and home, and the client connected to it.
async function start(t) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cenotaph-mcp-sdk-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, '.cenotaph.toml'), `project = "${PROJECT}"\n`);
  fs.writeFileSync(path.join(workspace, 'package.json'), JSON.stringify({ name: 'shop', dependencies: { leftpad: '0.0.1' } }));
  const env = { ...process.env, CENOTAPH_HOME: path.join(root, 'home'), XDG_STATE_HOME: path.join(root, 'state'),
    XDG_CACHE_HOME: path.join(root, 'cache') };

  const client = new Client({ name: 'ts-agent', version: '1.0.0' });
  const updated = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updated.push(n.params.uri); });
  await client.connect(new StdioClientTransport({ command: CENOTAPH, args: ['mcp'], cwd: workspace, env, stderr: 'ignore' }));
  t.after(() => client.close());
  return { client, env, workspace, updated };
}

const TOOLS = ['abandon', 'approach', 'briefing', 'candidates', 'change', 'check_approaches', 'compact', 'compile', 'inspect', 'mine',
  'recall', 'record_experience', 'remember', 'review_concept', 'settle', 'share'];

test('the TypeScript SDK client lists and reads the resources and prompts', { timeout: 180_000 }, async (t) => {
  const { client, env, workspace, updated } = await start(t);
  const tools = (await client.listTools()).tools.map((x) => x.name);
  assert.deepEqual(tools.slice().sort(), TOOLS);
  const resources = (await client.listResources()).resources.map((r) => [r.uri, r.mimeType]).sort();
  assert.deepEqual(resources, [['cenotaph://graveyard', 'text/markdown'], ['cenotaph://graveyard.json', 'application/json'],
    ['cenotaph://ledger', 'text/markdown']]);
  const templates = (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
  assert.deepEqual(templates, ['cenotaph://memory/{id}']);
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
  assert.deepEqual(prompts, ['before-adding-a-dependency', 'session-start', 'wrap-up']);
  assert.equal(client.getServerCapabilities().resources.subscribe, true);

  // The workspace declares leftpad in package.json: an npm package, not a PyPI one.
  const abandoned = await client.callTool({ name: 'abandon', arguments: { name: 'leftpad', reason: 'one line of code' } });
  assert.equal(abandoned.structuredContent.approach.ecosystem, 'npm');
  const graveyard = (await client.readResource({ uri: 'cenotaph://graveyard' })).contents[0].text;
  assert.match(graveyard, /\*\*leftpad\*\* \(npm\).*one line of code/);
  const memory = await client.readResource({ uri: `cenotaph://memory/${abandoned.structuredContent.memory_id}` });
  assert.match(JSON.parse(memory.contents[0].text).content, /leftpad/);
  const check = await client.getPrompt({ name: 'before-adding-a-dependency', arguments: { names: 'leftpad requests' } });
  assert.match(check.messages[0].content.text, /- leftpad: abandoned \(project\) — one line of code/);
  assert.match(check.messages[0].content.text, /- requests: clear/);
  const start_ = await client.getPrompt({ name: 'session-start' });
  assert.match(start_.messages[0].content.text, /leftpad/);
  const wrap = await client.getPrompt({ name: 'wrap-up' });
  assert.match(wrap.messages[0].content.text, /`record_experience`/);

  // Another process (the CLI) writes: the subscriber hears of it.
  await client.subscribeResource({ uri: 'cenotaph://graveyard' });
  execFileSync(CENOTAPH, ['abandon', '--project', PROJECT, '--reason', 'use date-fns', 'moment'], { env, cwd: workspace });
  const deadline = Date.now() + 15_000;
  while (!updated.includes('cenotaph://graveyard') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(updated.includes('cenotaph://graveyard'), `no resources/updated (got ${updated.join() || 'none'})`);
});

test('the TypeScript SDK client calls the tools and reads their compact results and plain errors', { timeout: 180_000 },
  async (t) => {
    const { client } = await start(t);
    const call = async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      assert.ok(!result.isError, `${name}: ${result.content[0].text}`);
      assert.ok(!JSON.stringify(result.structuredContent).includes('null'), `${name} returned a null`);
      return result;
    };
    const listed = await client.listTools();
    assert.ok(JSON.stringify(listed).length <= 20_000, `tools/list is ${JSON.stringify(listed).length} characters`);
    const stored = (await call('remember', { content: 'Orders are archived after 90 days.', kind: 'decision' }))
      .structuredContent;
    await call('abandon', { name: 'leftpad', reason: 'one line of code', effort: 2 });
    const recalled = await call('recall', { query: 'when are orders archived? leftpad' });
    const lines = recalled.content[0].text.split('\n');
    assert.equal(lines[0], 'ABANDONED leftpad, effort 2/5: one line of code');
    assert.match(lines[1], new RegExp(`^\\[${stored.id}\\] decision · \\d{4}-\\d\\d-\\d\\d · unverified · by mcp:ts-agent for \\S+ \\(agent\\) · `));
    assert.equal(lines[2], 'Orders are archived after 90 days.');
    const checked = await call('check_approaches', { names: ['leftpad', 'is-odd'] });
    assert.deepEqual(checked.content[0].text.split('\n'), ['leftpad: ABANDONED (project, effort 2/5): one line of code',
      'is-odd: clear']);
    const changed = await call('change', { memory_id: stored.id, action: 'update', reason: 'policy changed',
      content: 'Orders are archived after 30 days.' });
    assert.equal(changed.structuredContent.memory.version, 2);
    const history = await call('inspect', { what: 'history', memory_id: stored.id });
    assert.equal(history.structuredContent.versions.length, 2);
    await call('approach', { action: 'suppress', name: 'leftpad', kind: 'diagnostic', reason: 'vendored' });
    await call('briefing', {});
    const refused = await client.callTool({ name: 'change', arguments: { memory_id: stored.id, action: 'confirm',
      reason: 'I checked' } });
    assert.ok(refused.isError);
    assert.match(refused.content[0].text, /^action: 'confirm' is not one of update, deprioritise, /);
    assert.doesNotMatch(refused.content[0].text, /pydantic|validation error/i);
  });

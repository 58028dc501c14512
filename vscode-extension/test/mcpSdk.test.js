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

test('the TypeScript SDK client lists and reads the resources and prompts', { timeout: 180_000 }, async (t) => {
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

  const tools = (await client.listTools()).tools.map((x) => x.name);
  assert.ok(['briefing', 'check_approaches', 'abandon', 'record_experience'].every((n) => tools.includes(n)), tools.join());
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

  // Another process (the CLI) writes: the subscriber hears of it.
  await client.subscribeResource({ uri: 'cenotaph://graveyard' });
  execFileSync(CENOTAPH, ['abandon', '--project', PROJECT, '--reason', 'use date-fns', 'moment'], { env, cwd: workspace });
  const deadline = Date.now() + 15_000;
  while (!updated.includes('cenotaph://graveyard') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(updated.includes('cenotaph://graveyard'), `no resources/updated (got ${updated.join() || 'none'})`);
});

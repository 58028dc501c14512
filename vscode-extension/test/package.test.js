'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const pkg = require('../package.json');
const lock = require('../package-lock.json');
const { ITEM_ACTIONS } = require('../out/treeModel');
const { schema } = require('./helpers');

const contributed = new Set(pkg.contributes.commands.map((c) => c.command));

test('client commands never take a server command id (the language client registers those)', () => {
  const serverCommands = schema('commands').properties.command.enum;
  for (const id of serverCommands) assert.ok(!contributed.has(id), `${id} is the server's`);
});

test('the commands the issue names are in the palette', () => {
  const titles = pkg.contributes.commands.map((c) => `${c.category}: ${c.title}`);
  for (const t of ['Cenotaph: Restart Server', 'Cenotaph: Remember Selection', 'Cenotaph: Record Abandoned Approach…', 'Cenotaph: Recall…',
    'Cenotaph: Open Ledger', 'Cenotaph: Review Proposals and Candidates', 'Cenotaph: Copy MCP Endpoint']) assert.ok(titles.includes(t), t);
});

test('every menu entry names a contributed command; every tree action has one, hidden from the palette', () => {
  const menus = Object.values(pkg.contributes.menus).flat();
  for (const entry of menus) assert.ok(contributed.has(entry.command), entry.command);
  const hidden = new Set(pkg.contributes.menus.commandPalette.filter((m) => m.when === 'false').map((m) => m.command));
  for (const action of ITEM_ACTIONS) {
    const id = `cenotaph.item.${action}`;
    assert.ok(contributed.has(id), id);
    assert.ok(hidden.has(id), `${id} is hidden from the palette`);
    assert.ok(pkg.contributes.menus['view/item/context'].some((m) => m.command === id), `${id} is in the view's context menu`);
  }
});

test('dependencies are pinned exactly and locked', () => {
  for (const deps of [pkg.dependencies, pkg.devDependencies]) {
    for (const [name, version] of Object.entries(deps)) {
      assert.match(version, /^\d+\.\d+\.\d+$/, `${name} is pinned`);
      assert.equal(lock.packages[`node_modules/${name}`].version, version, `${name} is locked at ${version}`);
    }
  }
  assert.equal(pkg.engines.vscode, '^1.100.0');
});

test('only a trusted workspace may set the server command line', () => {
  const setting = pkg.contributes.configuration.properties['cenotaph.server.command'];
  assert.equal(setting.scope, 'machine-overridable');
  assert.deepEqual(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations, ['cenotaph.server.command']);
});

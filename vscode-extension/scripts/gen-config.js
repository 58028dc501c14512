#!/usr/bin/env node
// package.json's `contributes.configuration`, generated from shared_schema/settings.schema.json
// (the server's settings, flattened: `severity.project` → `cenotaph.severity.project`) plus the
// settings only the client reads. `--write` updates package.json; `--check` fails when it drifted.
'use strict';
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const SCHEMA = path.join(ROOT, '..', 'shared_schema', 'settings.schema.json');
const PACKAGE = path.join(ROOT, 'package.json');

// Read by the extension itself, never sent to the server.
const CLIENT_SETTINGS = {
  'cenotaph.server.command': {
    type: ['string', 'array'],
    items: { type: 'string' },
    default: '',
    // A command line from a cloned repository's settings would run on open: only trusted workspaces
    // may set it (package.json `capabilities.untrustedWorkspaces.restrictedConfigurations`).
    scope: 'machine-overridable',
    markdownDescription:
      'How to start the language server. Empty: `cenotaph serve` from `PATH`, else the Python extension\'s ' +
      'interpreter with `-m cenotaph.cli serve`. A string is the path of the `cenotaph` executable ' +
      '(`serve` is added); an array is the whole command line, e.g. `["/path/to/python", "-m", "cenotaph.cli", "serve"]`. ' +
      '`~` and `${workspaceFolder}` are expanded. Changing it restarts the server.',
  },
  'cenotaph.trace.server': {
    type: 'string',
    enum: ['off', 'messages', 'verbose'],
    default: 'off',
    description: 'Log the messages between VS Code and the language server in the Cenotaph output channel.',
  },
};
const KEPT = ['type', 'enum', 'default', 'description', 'minimum', 'maximum', 'uniqueItems'];

function resolve(schema, node) {
  if (node && node.$ref) {
    const name = node.$ref.replace('#/$defs/', '');
    return { ...resolve(schema, schema.$defs[name]), ...Object.fromEntries(Object.entries(node).filter(([k]) => k !== '$ref')) };
  }
  return node;
}

function property(schema, node) {
  const resolved = resolve(schema, node);
  let out = {};
  for (const key of KEPT) if (key in resolved) out[key] = resolved[key];
  if (resolved.items) out.items = property(schema, resolved.items);
  // VS Code's settings editor needs a type to offer a dropdown for an enum.
  if (out.enum && !out.type) out = { type: typeof out.enum[0], ...out };
  return out;
}

function generate(schema) {
  const properties = {};
  for (const [key, node] of Object.entries(schema.properties)) {
    const resolved = resolve(schema, node);
    if (resolved.type === 'object' && resolved.properties) {
      for (const [sub, subNode] of Object.entries(resolved.properties)) {
        properties[`cenotaph.${key}.${sub}`] = property(schema, subNode);
      }
    } else {
      properties[`cenotaph.${key}`] = property(schema, node);
    }
  }
  return { title: 'Cenotaph', properties: { ...CLIENT_SETTINGS, ...properties } };
}

function load() {
  return JSON.parse(fs.readFileSync(SCHEMA, 'utf8'));
}

module.exports = { generate, load, CLIENT_SETTINGS };

if (require.main === module) {
  const expected = generate(load());
  const pkg = JSON.parse(fs.readFileSync(PACKAGE, 'utf8'));
  if (process.argv.includes('--write')) {
    pkg.contributes.configuration = expected;
    fs.writeFileSync(PACKAGE, JSON.stringify(pkg, null, 2) + '\n');
  } else if (JSON.stringify(pkg.contributes.configuration) !== JSON.stringify(expected)) {
    console.error('package.json contributes.configuration differs from shared_schema/settings.schema.json: run node scripts/gen-config.js --write');
    process.exit(1);
  }
}

// Shared by the unit tests: paths relative to the repository, the shared schemas, a small JSON
// Schema validator (the subset shared_schema/ uses), and a private store for the real CLI.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const EXT = path.join(__dirname, '..');
const ROOT = path.join(EXT, '..');
const VENV_BIN = path.join(ROOT, '.venv', 'bin');
const PYTHON = path.join(VENV_BIN, 'python');
const CENOTAPH = path.join(VENV_BIN, 'cenotaph');

function schema(name) {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'shared_schema', `${name}.schema.json`), 'utf8'));
}

function typeOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

/** Problems with `value` against `node` (empty when valid). */
function validate(root, node, value, where = '$') {
  if (node === true || node === undefined) return [];
  if (node === false) return [`${where}: not allowed`];
  if (node.$ref) return validate(root, root.$defs[node.$ref.replace('#/$defs/', '')], value, where);
  const problems = [];
  const t = typeOf(value);
  if (node.type) {
    const types = [].concat(node.type);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) problems.push(`${where}: ${t} is not ${types.join('|')}`);
  }
  if (node.enum && !node.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) problems.push(`${where}: ${JSON.stringify(value)} not in enum`);
  if ('const' in node && JSON.stringify(node.const) !== JSON.stringify(value)) problems.push(`${where}: not ${JSON.stringify(node.const)}`);
  if (t === 'string') {
    if (node.minLength !== undefined && value.length < node.minLength) problems.push(`${where}: shorter than ${node.minLength}`);
    if (node.maxLength !== undefined && value.length > node.maxLength) problems.push(`${where}: longer than ${node.maxLength}`);
    if (node.pattern && !new RegExp(node.pattern).test(value)) problems.push(`${where}: does not match ${node.pattern}`);
  }
  if (t === 'integer' || t === 'number') {
    if (node.minimum !== undefined && value < node.minimum) problems.push(`${where}: below ${node.minimum}`);
    if (node.maximum !== undefined && value > node.maximum) problems.push(`${where}: above ${node.maximum}`);
  }
  if (t === 'object') {
    for (const key of node.required || []) if (!(key in value)) problems.push(`${where}: missing ${key}`);
    for (const [key, v] of Object.entries(value)) {
      if (node.properties && key in node.properties) problems.push(...validate(root, node.properties[key], v, `${where}.${key}`));
      else if (node.additionalProperties === false) problems.push(`${where}: unexpected ${key}`);
    }
  }
  if (t === 'array') {
    (node.prefixItems || []).forEach((item, i) => { if (i < value.length) problems.push(...validate(root, item, value[i], `${where}[${i}]`)); });
    if (node.items) value.forEach((v, i) => problems.push(...validate(root, node.items, v, `${where}[${i}]`)));
    if (node.minItems !== undefined && value.length < node.minItems) problems.push(`${where}: fewer than ${node.minItems} items`);
    if (node.maxItems !== undefined && value.length > node.maxItems) problems.push(`${where}: more than ${node.maxItems} items`);
    if (node.uniqueItems && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) problems.push(`${where}: repeated items`);
  }
  for (const sub of node.allOf || []) problems.push(...validate(root, sub, value, where));
  if (node.anyOf && !node.anyOf.some((sub) => validate(root, sub, value, where).length === 0)) problems.push(`${where}: matches none of anyOf`);
  if (node.oneOf && node.oneOf.filter((sub) => validate(root, sub, value, where).length === 0).length !== 1) problems.push(`${where}: does not match exactly one of oneOf`);
  if (node.not && validate(root, node.not, value, where).length === 0) problems.push(`${where}: matches "not"`);
  if (node.if) {
    const branch = validate(root, node.if, value, where).length === 0 ? node.then : node.else;
    if (branch) problems.push(...validate(root, branch, value, where));
  }
  return problems;
}

/** A private store for the real `cenotaph` CLI: its environment and a temporary folder. */
function privateStore() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cenotaph-unit-'));
  const env = { ...process.env, CENOTAPH_HOME: path.join(dir, 'home'), XDG_CACHE_HOME: path.join(dir, 'cache'),
    XDG_STATE_HOME: path.join(dir, 'state'), XDG_DATA_HOME: path.join(dir, 'data') };
  return { dir, env, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

module.exports = { EXT, ROOT, VENV_BIN, PYTHON, CENOTAPH, schema, validate, privateStore };

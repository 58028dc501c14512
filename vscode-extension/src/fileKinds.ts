// The documents the server scans, by file kind (settings.schema.json `$defs/fileKind`, classified by
// the server's `cenotaph.nlp.ecosystems.document_kind`). A unit test checks these patterns against it.

export const FILE_KIND_PATTERNS: Record<string, string[]> = {
  python: ['**/*.{py,pyi}'],
  javascript: ['**/*.{js,jsx,ts,tsx,mjs,cjs,mts,cts}'],
  go: ['**/*.go'],
  rust: ['**/*.rs'],
  requirements: ['**/*requirements*.{txt,in}', '**/constraints*.{txt,in}', '**/requirements/*.{txt,in}'],
  pyproject: ['**/pyproject.toml'],
  package_json: ['**/package.json'],
  cargo_toml: ['**/{Cargo,cargo}.toml'],
  go_mod: ['**/go.mod'],
  setup_py: ['**/setup.py'], // a Python file too: its imports are scanned with its declarations
  setup_cfg: ['**/setup.cfg'],
  tox_ini: ['**/tox.ini'],
  pipfile: ['**/{Pipfile,pipfile}'],
  environment_yml: ['**/environment.{yml,yaml}', '**/environment-*.{yml,yaml}'],
  pre_commit: ['**/.pre-commit-config.{yaml,yml}'],
  dockerfile: [
    '**/{Dockerfile,dockerfile,Containerfile,containerfile}',
    '**/{Dockerfile,dockerfile,Containerfile,containerfile}.*',
    '**/*.{dockerfile,Dockerfile}',
  ],
  markdown: ['**/*.{md,markdown}'],
  restructuredtext: ['**/*.rst'],
  // requirements*.txt and constraints*.txt are the requirements kind: the server picks the more specific.
  plaintext: ['**/*.txt', '**/{README,readme,Readme}'],
  instructions: ['**/{AGENTS,CLAUDE,agents,claude}.md', '**/.cursorrules', '**/.github/copilot-instructions.md'],
};

/** The URI scheme of the ledger documents the server serves (`cenotaph:ledger/<project>.md`). */
export const LEDGER_SCHEME = 'cenotaph';

export interface DocumentFilter {
  scheme: string;
  pattern?: string;
}

/** Every file kind, whatever `cenotaph.fileKinds` says: the server skips the kinds it is told to,
 * and a settings change then needs no new selector. Plus the ledgers, for their diagnostics and actions. */
export function documentSelector(): DocumentFilter[] {
  const filters: DocumentFilter[] = [];
  for (const patterns of Object.values(FILE_KIND_PATTERNS)) {
    for (const pattern of patterns) filters.push({ scheme: 'file', pattern });
  }
  filters.push({ scheme: LEDGER_SCHEME });
  return filters;
}

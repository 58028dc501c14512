// The `cenotaph/compile` contract (shared_schema/compile.schema.json) and the names of a
// proposal's draft documents: no VS Code API here, so the unit tests can load it.

export const COMPILE_REQUEST = 'cenotaph/compile';
export const DRAFT_SCHEME = 'cenotaph-draft';

export const TARGETS: ReadonlyArray<{ target: string; label: string; detail: string }> = [
  { target: 'skill', label: 'Agent Skills', detail: '.claude/skills/<topic>/SKILL.md' },
  { target: 'agents-md', label: 'AGENTS.md', detail: 'the managed block' },
  { target: 'claude-md', label: 'CLAUDE.md', detail: 'the managed block' },
  { target: 'copilot', label: 'Copilot instructions', detail: '.github/copilot-instructions.md, the managed block' },
  { target: 'ruff', label: 'Ruff', detail: 'banned-api (TID251) in ruff.toml or pyproject.toml' },
  { target: 'eslint', label: 'ESLint', detail: 'no-restricted-imports' },
  { target: 'biome', label: 'Biome', detail: 'noRestrictedImports in biome.json' },
];

export interface ProposedFile {
  path: string;
  uri: string;
  baseSha256: string;
  /** Null: accepting deletes the file. */
  draft: string | null;
  diff: string;
}

export interface CompileResult {
  target: string;
  proposalId?: number;
  lessons: number;
  files: ProposedFile[];
}

/** `cenotaph-draft:/<proposal id>/<path>`: the draft; `…?base` the file as it was on disk (empty for a new one). */
export function draftPath(proposalId: number, path: string, base = false): { path: string; query: string } {
  return { path: `/${proposalId}/${path}`, query: base ? 'base' : '' };
}

export function proposalOf(path: string): number | undefined {
  const m = /^\/(\d+)\//.exec(path);
  return m ? Number(m[1]) : undefined;
}

export function diffTitle(proposalId: number, file: Pick<ProposedFile, 'path' | 'baseSha256' | 'draft'>): string {
  const state = file.baseSha256 === 'absent' ? 'new file' : file.draft === null ? 'deleted' : 'current ↔ draft';
  return `Cenotaph proposal #${proposalId}: ${file.path} (${state})`;
}

// Recall: the running language server answers `cenotaph/recall` (shared_schema/recall.schema.json)
// from the model it has loaded; `cenotaph recall --json`, the same shape, only when no server runs.
// Pure parts: the request, the quick pick rows and the document that shows one memory.

import { clip } from './ledger';

export const RECALL_REQUEST = 'cenotaph/recall';

export interface RecallResult {
  result_type: 'memory' | 'abandoned_warning';
  id: number;
  content: string;
  project: string;
  kind: string;
  tags: string[];
  state: string;
  trust: string;
  score: number;
  lane: string;
  is_global: boolean;
  disputed?: boolean;
  reinstate_hint_matched?: boolean;
  valid_from?: string | null;
  valid_to?: string | null;
  /** Held until valid_to and no longer: history, not advice. */
  history?: boolean;
  recorded_at?: string | null;
  name?: string | null;
  reason?: string | null;
  effort?: number | null;
  ecosystem?: string | null;
  /** Documents (`cenotaph ingest`) and memories remembered from a selection: the file, relative to the repository root, and its lines. */
  location?: { path: string; start_line: number; end_line: number } | null;
}

export interface RecallResponse {
  query: string;
  project: string;
  lane: string;
  results: RecallResult[];
  notices: string[];
}

/** `cenotaph/recall` params: the query, and a document or folder URI (or the project) that decides the project. */
export interface RecallParams {
  query: string;
  k?: number;
  kinds?: string[];
  uri?: string;
  project?: string;
}

export function recallParams(query: string, scope: { uri?: string; project?: string }, k: number): RecallParams {
  return { query: query.trim(), k, ...scope };
}

export interface RecallPick {
  label: string;
  description: string;
  detail: string;
  result: RecallResult;
}

/** A recall answer, from the server or the command line: the same shape. */
export function checkRecall(value: unknown, from: string): RecallResponse {
  const response = value as RecallResponse;
  if (!response || !Array.isArray(response.results)) throw new Error(`unexpected answer from ${from}`);
  return response;
}

export function parseRecall(stdout: string): RecallResponse {
  return checkRecall(JSON.parse(stdout), '`cenotaph recall --json`');
}

export function recallPicks(response: RecallResponse): RecallPick[] {
  return response.results.map((result) => {
    if (result.result_type === 'abandoned_warning') {
      return {
        label: `$(circle-slash) ${result.name ?? 'approach'} was abandoned`,
        description: `graveyard${result.effort ? ` · effort ${result.effort}/5` : ''}${result.is_global ? ' · everywhere' : ''}`,
        detail: clip(result.reason ?? result.content, 200),
        result,
      };
    }
    const flags = [result.kind, result.trust, result.state !== 'active' ? result.state : '',
      result.history ? `history, until ${(result.valid_to ?? '').slice(0, 10)}` : '', `${result.lane} ${result.score.toFixed(2)}`]
      .filter(Boolean);
    return {
      label: `${result.disputed ? '$(warning) ' : ''}${clip(result.content, 90)}`,
      description: `#${result.id} · ${flags.join(' · ')}`,
      detail: (result.location ? `${result.location.path}:${result.location.start_line} · ` : '') + clip(result.content, 200),
      result,
    };
  });
}

/** The Markdown of one recalled memory, as the editor shows it (read-only). */
export function memoryMarkdown(result: RecallResult): string {
  const facts = [
    `kind: ${result.kind}`, `trust: ${result.trust}`, `state: ${result.state}`,
    `project: ${result.project || '(global scope)'}`,
    result.recorded_at ? `recorded: ${result.recorded_at}` : '',
    result.valid_from ? `valid from: ${result.valid_from}` : '',
    result.valid_to ? `valid until: ${result.valid_to}${result.history ? ' (history: it holds no longer, not current advice)' : ''}` : '',
    result.tags?.length ? `tags: ${result.tags.join(', ')}` : '',
    `recalled by the ${result.lane} lane, score ${result.score.toFixed(3)}`,
  ].filter(Boolean);
  return [`# Memory #${result.id}`, '', result.content, '', '---', '', ...facts.map((fact) => `- ${fact}`), ''].join('\n');
}

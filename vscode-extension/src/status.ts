// The status bar item's text: the project, open contradictions and what waits for review (proposals
// and candidates from history), the server's state.

import { LedgerCounts, shortProject } from './ledger';

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed' | 'notFound';

export interface StatusInput {
  state: ServerState;
  project?: string;
  counts?: LedgerCounts;
  detail?: string;
}

export interface StatusView {
  text: string;
  tooltip: string;
  /** Whether it should draw attention (an error background). */
  alert: boolean;
}

const STATE_WORDS: Record<ServerState, string> = {
  starting: 'starting',
  running: 'running',
  stopped: 'stopped',
  failed: 'not running (it exited)',
  notFound: 'not found',
};

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function statusView(input: StatusInput): StatusView {
  const { state, project, counts } = input;
  const icon = state === 'starting' ? '$(sync~spin)' : state === 'running' ? '$(book)' : '$(error)';
  let text = `${icon} Cenotaph`;
  if (project !== undefined) text += `: ${shortProject(project)}`;
  if (state === 'running' && counts) {
    // Candidates from history wait for the same person as an agent's proposals: one inbox.
    text += ` $(git-compare) ${counts.contradictions} $(inbox) ${counts.proposals + counts.candidates}`;
  }
  const lines = [`Cenotaph language server: ${STATE_WORDS[state]}`];
  if (input.detail) lines.push(input.detail);
  if (project !== undefined) lines.push(`Project: ${project || '(global scope)'}`);
  if (counts) {
    lines.push([
      plural(counts.contradictions, 'open contradiction', 'open contradictions'),
      plural(counts.proposals, 'pending proposal', 'pending proposals'),
      plural(counts.candidates, 'candidate from history', 'candidates from history'),
      plural(counts.graveyard, 'abandoned approach', 'abandoned approaches'),
      plural(counts.deprioritised, 'deprioritised memory', 'deprioritised memories'),
      plural(counts.silences, 'silence', 'silences'),
    ].join(', '));
  }
  lines.push(state === 'running' ? 'Click to open the ledger.' : 'Click to see what happened.');
  return { text, tooltip: lines.join('\n'), alert: state === 'failed' || state === 'notFound' };
}

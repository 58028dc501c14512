// Candidates from history decided in bulk (shared_schema: cenotaph.decideCandidates): the person
// picks a decision and what it applies to, sees the list the server would touch and confirms, and
// exactly those are decided, as one batch that `cenotaph.reopenCandidates` undoes.

import * as vscode from 'vscode';
import { CenotaphClient } from './client';
import { SELECTORS, selection } from './review';

/** Cenotaph: Accept or Reject Candidates in Bulk… */
export async function decideInBulk(client: CenotaphClient, scope: Record<string, string> | undefined): Promise<void> {
  if (!scope) return;
  const decision = (await vscode.window.showQuickPick(['Reject', 'Accept'], { title: 'Cenotaph: candidates in bulk' }))?.toLowerCase();
  if (!decision) return;
  const how = await vscode.window.showQuickPick(SELECTORS.map((s) => ({ ...s, detail: s.prompt })),
    { title: `Cenotaph: which candidates to ${decision}?` });
  if (!how) return;
  const text = await vscode.window.showInputBox({
    title: `Cenotaph: ${decision} ${how.label.toLowerCase()}`, prompt: how.prompt, ignoreFocusOut: true,
    validateInput: (value) => { const chosen = selection(how.key, value); return typeof chosen === 'string' ? chosen : undefined; },
  });
  if (text === undefined) return;
  const chosen = selection(how.key, text) as Record<string, unknown>;
  const preview = await client.preview('cenotaph.decideCandidates', { ...scope, ...chosen, decision, preview: true });
  if (!preview) return;
  const ids = preview.ids ?? [];
  if (!ids.length) {
    void vscode.window.showWarningMessage(`Cenotaph: no pending candidates match (${how.label.toLowerCase()}: ${text.trim()}).`);
    return;
  }
  const yes = `${decision === 'reject' ? 'Reject' : 'Accept'} ${ids.length}`;
  const answer = await vscode.window.showWarningMessage(`Cenotaph: ${preview.message}`,
    { modal: true, detail: preview.markdown ?? undefined }, yes);
  if (answer !== yes) return;
  await client.run('cenotaph.decideCandidates', { decision, proposalIds: ids });
}

/** Cenotaph: Reopen Rejected Candidates… (a batch, or candidates by number). */
export async function reopen(client: CenotaphClient): Promise<void> {
  const text = await vscode.window.showInputBox({
    title: 'Cenotaph: reopen rejected candidates', ignoreFocusOut: true,
    prompt: 'A batch (batch 57, as a rejection told) or candidate numbers (13 19 11)',
    validateInput: (value) => (/^\s*(batch\s*#?\d+|\d+([\s,]+\d+)*)\s*$/i.test(value) ? undefined : 'batch N, or numbers'),
  });
  if (text === undefined) return;
  const batch = /batch\s*#?(\d+)/i.exec(text);
  await client.run('cenotaph.reopenCandidates', batch ? { batch: Number(batch[1]) }
    : { proposalIds: text.trim().split(/[\s,]+/).map(Number) });
}

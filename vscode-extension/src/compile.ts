// From memory to policy: a `cenotaph/compile` proposal (shared_schema/compile.schema.json) opens in
// VS Code's diff editor, a read-only copy of the file as it is on disk against a read-only virtual
// document of the draft, with Accept / Reject in the editor title and in the notification. Both
// sides are the proposal's own documents, never the person's open one: its tab, its unsaved edits
// and its undo history stay out of the proposal. Accept is the server's `cenotaph.acceptProposal`:
// it writes only if the file is still as it was diffed, and says which files it wrote.

import * as vscode from 'vscode';
import { CenotaphClient } from './client';
import { LedgerModel } from './views';
import { COMPILE_REQUEST, CompileResult, DRAFT_SCHEME, TARGETS, diffTitle, draftPath, proposalOf } from './compileModel';

class Drafts implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();

  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}

export function registerCompile(context: vscode.ExtensionContext, client: CenotaphClient, model: LedgerModel): void {
  const drafts = new Drafts();
  const register = (id: string, run: (...args: any[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, run));
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(DRAFT_SCHEME, drafts));

  // Decided here already (true: accepted): the proposal's notification stays on screen after
  // Accept in the editor title; clicking it later says so instead of acting a second time, or
  // of doing nothing. One decided elsewhere, the server says so.
  const decided = new Map<number, boolean>();
  const decide = async (proposalId: number, accept: boolean): Promise<void> => {
    const before = decided.get(proposalId);
    if (before !== undefined) {
      void vscode.window.showInformationMessage(`Cenotaph: proposal #${proposalId} was already ${before ? 'accepted' : 'rejected'}.`);
      return;
    }
    const result = await client.run(accept ? 'cenotaph.acceptProposal' : 'cenotaph.rejectProposal', { proposalId });
    if (result?.done) {
      decided.set(proposalId, accept);
      await closeDrafts(proposalId);
    }
  };

  const propose = async (params: { target: string; uri?: string; project?: string }): Promise<void> => {
    let result: CompileResult;
    try {
      result = await client.request<CompileResult>(COMPILE_REQUEST, params);
    } catch (error) {
      void vscode.window.showErrorMessage(`Cenotaph: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const proposalId = result.proposalId;
    if (proposalId === undefined) {
      void vscode.window.showInformationMessage(`Cenotaph: ${result.target} is up to date (${result.lessons} lessons).`);
      return;
    }
    for (const file of result.files) {
      const draft = vscode.Uri.from({ scheme: DRAFT_SCHEME, ...draftPath(proposalId, file.path) });
      drafts.set(draft, file.draft ?? '');
      const left = vscode.Uri.from({ scheme: DRAFT_SCHEME, ...draftPath(proposalId, file.path, true) });
      drafts.set(left, file.baseSha256 === 'absent' ? '' : await onDisk(vscode.Uri.parse(file.uri)));
      await vscode.commands.executeCommand('vscode.diff', left, draft, diffTitle(proposalId, file), { preview: false });
    }
    const files = result.files.map((f) => f.path).join(', ');
    const choice = await vscode.window.showInformationMessage(
      `Cenotaph proposal #${proposalId}: ${files} from ${result.lessons} lessons.`, 'Accept', 'Reject');
    if (choice) await decide(proposalId, choice === 'Accept');
  };

  register('cenotaph.compile', async () => {
    const pick = await vscode.window.showQuickPick(
      TARGETS.map((t) => ({ label: t.label, description: t.detail, target: t.target })),
      { title: 'Cenotaph: compile the lessons into…' });
    if (!pick) return;
    // The server compiles for the repository around a workspace document; without one, for the
    // current project (a folder's URI would be read as a document in its parent).
    const document = vscode.window.activeTextEditor?.document;
    if (document && document.uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(document.uri)) {
      await propose({ target: pick.target, uri: document.uri.toString() });
      return;
    }
    if (model.project === undefined) await model.refresh();
    if (model.project === undefined) {
      void vscode.window.showWarningMessage(model.error ?? 'Cenotaph: open a folder first: lessons belong to a project.');
      return;
    }
    await propose({ target: pick.target, project: model.project });
  });
  // The "Propose an update" code action on an out-of-date managed block.
  register('cenotaph.proposeUpdate', (arg: { target: string; uri: string }) => propose(arg));
  for (const [id, accept] of [['cenotaph.acceptCompile', true], ['cenotaph.rejectCompile', false]] as const) {
    register(id, async (uri?: vscode.Uri) => {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      const proposalId = target?.scheme === DRAFT_SCHEME ? proposalOf(target.path) : undefined;
      if (proposalId !== undefined) await decide(proposalId, accept);
    });
  }
}

/** The file as the proposal's base saw it: its bytes on disk, not an open editor's unsaved text. */
async function onDisk(uri: vscode.Uri): Promise<string> {
  try {
    return new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return ''; // gone since the proposal: Accept refuses it, as the base no longer matches
  }
}

async function closeDrafts(proposalId: number): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((tab) => {
    const input = tab.input;
    return input instanceof vscode.TabInputTextDiff && input.modified.scheme === DRAFT_SCHEME
      && proposalOf(input.modified.path) === proposalId;
  });
  if (tabs.length) await vscode.window.tabGroups.close(tabs);
}

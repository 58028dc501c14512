// From memory to policy: a `cenotaph/compile` proposal (shared_schema/compile.schema.json) opens in
// VS Code's diff editor, the file on disk against a read-only virtual document of the draft, with
// Accept / Reject in the editor title and in the notification. Accept is the server's
// `cenotaph.acceptProposal`: it writes only if the file is still as it was diffed.

import * as vscode from 'vscode';
import { CenotaphClient } from './client';
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

export function registerCompile(context: vscode.ExtensionContext, client: CenotaphClient): void {
  const drafts = new Drafts();
  const register = (id: string, run: (...args: any[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, run));
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(DRAFT_SCHEME, drafts));

  const decide = async (proposalId: number, accept: boolean): Promise<void> => {
    const result = await client.run(accept ? 'cenotaph.acceptProposal' : 'cenotaph.rejectProposal', { proposalId });
    if (result?.done) await closeDrafts(proposalId);
  };

  const propose = async (params: { target: string; uri?: string }): Promise<void> => {
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
      let left = vscode.Uri.parse(file.uri);
      if (file.baseSha256 === 'absent') {
        left = vscode.Uri.from({ scheme: DRAFT_SCHEME, ...draftPath(proposalId, file.path, true) });
        drafts.set(left, '');
      }
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
    const document = vscode.window.activeTextEditor?.document;
    const folder = (document && vscode.workspace.getWorkspaceFolder(document.uri)) ?? vscode.workspace.workspaceFolders?.[0];
    if (!folder) {
      void vscode.window.showWarningMessage('Cenotaph: open a folder first: lessons belong to a project.');
      return;
    }
    const uri = document && document.uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(document.uri)
      ? document.uri : folder.uri;
    await propose({ target: pick.target, uri: uri.toString() });
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

async function closeDrafts(proposalId: number): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((tab) => {
    const input = tab.input;
    return input instanceof vscode.TabInputTextDiff && input.modified.scheme === DRAFT_SCHEME
      && proposalOf(input.modified.path) === proposalId;
  });
  if (tabs.length) await vscode.window.tabGroups.close(tabs);
}

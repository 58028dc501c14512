// From memory to policy: a `cenotaph/compile` proposal (shared_schema/compile.schema.json) opens in
// VS Code's diff editor, the file on disk against a read-only virtual document of the draft, with
// Accept / Reject in the editor title and in the notification. Accept is the server's
// `cenotaph.acceptProposal`: it writes only if the file is still as it was diffed.

import * as vscode from 'vscode';
import { CenotaphClient } from './client';

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
  draft: string;
  diff: string;
}

export interface CompileResult {
  target: string;
  proposalId?: number;
  lessons: number;
  files: ProposedFile[];
}

/** `cenotaph-draft:/<proposal id>/<path>`: the draft; `…?base` the empty file a new one starts from. */
export function draftPath(proposalId: number, path: string, base = false): { path: string; query: string } {
  return { path: `/${proposalId}/${path}`, query: base ? 'base' : '' };
}

export function proposalOf(path: string): number | undefined {
  const m = /^\/(\d+)\//.exec(path);
  return m ? Number(m[1]) : undefined;
}

export function diffTitle(proposalId: number, file: ProposedFile): string {
  const state = file.baseSha256 === 'absent' ? 'new file' : 'current ↔ draft';
  return `Cenotaph proposal #${proposalId}: ${file.path} (${state})`;
}

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
      drafts.set(draft, file.draft);
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

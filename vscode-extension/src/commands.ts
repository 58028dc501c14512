// The commands of the palette, the editor menu and the Cenotaph view. Every change goes through
// the server's own commands (CenotaphClient.run), the same ones its code actions use.

import { execFile } from 'child_process';
import * as vscode from 'vscode';
import { decideInBulk, reopen } from './bulk';
import { CenotaphClient } from './client';
import { mcpClientConfig } from './endpoint';
import { clip, shortProject } from './ledger';
import { memoryMarkdown, parseRecall, RecallResponse, recallParams, recallPicks } from './recall';
import { EFFORT_PICK, effortItems, KINDS, selectionLines } from './review';
import { cliArgv } from './serverCommand';
import { entryView, ITEM_ACTIONS, itemCommand } from './treeModel';
import { LedgerModel, LedgerTree, MemoryDocuments } from './views';

export function registerCommands(context: vscode.ExtensionContext, client: CenotaphClient, model: LedgerModel,
  pages: MemoryDocuments): void {
  const register = (id: string, run: (...args: any[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, run));

  register('cenotaph.restartServer', () => client.restart());
  register('cenotaph.showServerProblem', () => client.showProblem());
  register('cenotaph.refreshView', () => model.refresh());
  register('cenotaph.openLedger', (line?: unknown) => openLedger(client, model, typeof line === 'number' ? line : undefined));
  register('cenotaph.rememberSelection', () => rememberSelection(client, model, false));
  register('cenotaph.rememberSelectionAs', () => rememberSelection(client, model, true));
  register('cenotaph.blessMemory', () => blessMemory(client));
  register('cenotaph.setApproachEffort', () => setApproachEffort(client, model));
  register('cenotaph.recordAbandoned', () => recordAbandoned(client, model));
  register('cenotaph.recall', () => recall(client, model, pages));
  register('cenotaph.showProposals', () => showProposals(client, model));
  register('cenotaph.copyMcpEndpoint', () => copyMcpEndpoint(client));
  register('cenotaph.mineHistory', () => mineHistory(client, model));
  register('cenotaph.decideInBulk', () => requireServer(client) && decideInBulk(client, scopeOf(undefined, model)));
  register('cenotaph.reopenRejected', () => requireServer(client) && reopen(client));
  for (const action of ITEM_ACTIONS) {
    register(`cenotaph.item.${action}`, async (node: unknown) => {
      const entry = LedgerTree.entryOf(node);
      const call = entry && itemCommand(action, entry, model.project ?? '');
      if (call?.command === 'cenotaph.setEffort') {
        const effort = await pickEffort(String(call.argument.name));
        if (effort !== undefined) await client.run(call.command, { ...call.argument, effort });
      } else if (call) await client.run(call.command, call.argument);
    });
  }
}

const RECALL_K = 20;

function requireServer(client: CenotaphClient): boolean {
  if (client.running) return true;
  void client.showProblem();
  return false;
}

/** Where a command on this document belongs: its URI when it is in a workspace folder, else the current project. */
function scopeOf(document: vscode.TextDocument | undefined, model: LedgerModel): Record<string, string> | undefined {
  if (document && document.uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(document.uri)) {
    return { uri: document.uri.toString() };
  }
  if (model.project !== undefined) return { project: model.project };
  void vscode.window.showWarningMessage('Cenotaph: open a folder first: memories belong to a project.');
  return undefined;
}

async function openLedger(client: CenotaphClient, model: LedgerModel, line?: number): Promise<void> {
  if (!requireServer(client)) return;
  if (!model.result) await model.refresh();
  if (!model.result) {
    void vscode.window.showWarningMessage(model.error ?? 'Cenotaph: no ledger to show.');
    return;
  }
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(model.result.uri));
  const editor = await vscode.window.showTextDocument(document, { preview: false });
  if (line !== undefined && line < document.lineCount) {
    const range = document.lineAt(line).range;
    editor.selection = new vscode.Selection(range.start, range.start);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
}

/** The selection, verbatim, with its file and lines (one selection: several have no one place). */
async function rememberSelection(client: CenotaphClient, model: LedgerModel, askKind: boolean): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const text = editor ? editor.selections.map((s) => editor.document.getText(s)).filter((t) => t.trim()).join('\n') : '';
  if (!editor || !text.trim()) {
    void vscode.window.showWarningMessage('Cenotaph: select the text to remember first.');
    return;
  }
  if (!requireServer(client)) return;
  const scope = scopeOf(editor.document, model);
  if (!scope) return;
  const argument: Record<string, unknown> = { text, ...scope };
  if (askKind) {
    const kind = await vscode.window.showQuickPick([...KINDS], { title: 'Cenotaph: Remember the Selection As', ignoreFocusOut: true });
    if (!kind) return;
    argument.kind = kind;
  }
  const { start, end } = editor.selection;
  if (scope.uri && editor.selections.length === 1) argument.lines = selectionLines(start.line, end.line, end.character);
  await client.run('cenotaph.remember', argument);
}

async function pickEffort(name: string, skip = false): Promise<number | undefined> {
  const pick = await vscode.window.showQuickPick(effortItems(skip), {
    ...EFFORT_PICK, title: `Cenotaph: what did '${name}' cost?`, placeHolder: 'How much did it cost before it was given up?', ignoreFocusOut: true,
  });
  return pick?.effort;
}

async function blessMemory(client: CenotaphClient): Promise<void> {
  if (!requireServer(client)) return;
  const id = await vscode.window.showInputBox({
    title: 'Cenotaph: Bless a Memory', prompt: 'Which memory do you vouch for (its lessons compile without waiting to recur)?',
    placeHolder: 'memory id, e.g. 42', ignoreFocusOut: true,
    validateInput: (v) => (/^\s*#?[1-9]\d*\s*$/.test(v) ? undefined : 'A memory id: a whole number from 1.'),
  });
  if (id === undefined) return;
  await client.run('cenotaph.bless', { memoryId: Number(id.trim().replace('#', '')) });
}

/** The flagged name at the cursor (its graveyard project too), else the word there, to start from. */
function approachAtCursor(editor: vscode.TextEditor | undefined): { name: string; project?: string } {
  if (!editor) return { name: '' };
  const at = editor.selection.active;
  const flagged = vscode.languages.getDiagnostics(editor.document.uri)
    .find((d) => d.source === 'cenotaph' && d.range.contains(at) && typeof (d as { data?: { name?: unknown } }).data?.name === 'string');
  const data = (flagged as { data?: { name: string; project: string } } | undefined)?.data;
  if (data) return { name: data.name, project: data.project };
  const word = editor.document.getWordRangeAtPosition(at, /[@\w][\w@./:+~-]*/);
  return { name: word ? editor.document.getText(word) : '' };
}

async function setApproachEffort(client: CenotaphClient, model: LedgerModel): Promise<void> {
  if (!requireServer(client)) return;
  const guess = approachAtCursor(vscode.window.activeTextEditor);
  const name = await vscode.window.showInputBox({
    title: 'Cenotaph: Set What an Abandoned Approach Cost', prompt: 'Which abandoned approach?', value: guess.name,
    ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'Give its name.'),
  });
  if (name === undefined) return;
  const effort = await pickEffort(name.trim());
  if (effort === undefined) return;
  const project = name.trim() === guess.name && guess.project !== undefined ? guess.project : model.project;
  if (project === undefined) {
    void vscode.window.showWarningMessage('Cenotaph: open a folder first: the graveyard belongs to a project.');
    return;
  }
  await client.run('cenotaph.setEffort', { name: name.trim(), project, effort });
}

async function recordAbandoned(client: CenotaphClient, model: LedgerModel): Promise<void> {
  if (!requireServer(client)) return;
  const editor = vscode.window.activeTextEditor;
  let guess = '';
  if (editor) {
    const selected = editor.document.getText(editor.selection).trim();
    const word = editor.document.getWordRangeAtPosition(editor.selection.active, /[@\w][\w@./:+~-]*/);
    guess = selected || (word ? editor.document.getText(word) : '');
  }
  const name = await vscode.window.showInputBox({
    title: 'Cenotaph: Record Abandoned Approach (1/4)', prompt: 'What was abandoned: a package, tool, image or approach?',
    value: guess.length <= 300 ? guess : '', ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? (v.trim().length > 300 ? 'At most 300 characters.' : undefined) : 'Give a name.'),
  });
  if (name === undefined) return;
  const reason = await vscode.window.showInputBox({
    title: 'Cenotaph: Record Abandoned Approach (2/4)', prompt: `Why was '${name.trim()}' abandoned?`,
    placeHolder: 'e.g. SIGILL crash on Alpine (musl libc)', ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'The reason is what future readers need.'),
  });
  if (reason === undefined) return;
  const effort = await vscode.window.showQuickPick(effortItems(true), { ...EFFORT_PICK, title: 'Cenotaph: Record Abandoned Approach (3/4)', placeHolder: 'How much did it cost before it was given up?', ignoreFocusOut: true });
  if (!effort) return;
  const scopes = [
    { label: 'In this project', scope: 'project' as const },
    { label: 'Everywhere', scope: 'everywhere' as const, description: 'flag it in every project' },
  ];
  const scope = await vscode.window.showQuickPick(scopes, { title: 'Cenotaph: Record Abandoned Approach (4/4)', placeHolder: 'Where does it stay dead?', ignoreFocusOut: true });
  if (!scope) return;
  const argument: Record<string, unknown> = { name: name.trim(), reason: reason.trim(), scope: scope.scope };
  if (effort.effort) argument.effort = effort.effort;
  if (scope.scope === 'project') {
    const where = scopeOf(editor?.document, model);
    if (!where) return;
    Object.assign(argument, where);
  }
  await client.run('cenotaph.abandon', argument);
}

async function recall(client: CenotaphClient, model: LedgerModel, pages: MemoryDocuments): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const selected = editor ? editor.document.getText(editor.selection).trim() : '';
  const query = await vscode.window.showInputBox({
    title: 'Cenotaph: Recall', prompt: 'What do you want to remember?', value: selected.slice(0, 500), ignoreFocusOut: true,
  });
  if (!query?.trim()) return;
  const response = client.running ? await recallWithServer(client, editor?.document, model, query)
    : await recallWithCli(client, model, query);
  if (!response) return;
  const picks = recallPicks(response);
  for (const notice of response.notices) void vscode.window.showInformationMessage(`Cenotaph: ${notice}`);
  if (!picks.length) {
    void vscode.window.showInformationMessage(`Cenotaph: nothing recalled for "${clip(query, 60)}" in ${shortProject(response.project)}.`);
    return;
  }
  const pick = await vscode.window.showQuickPick(picks, {
    title: `Cenotaph: ${picks.length} recalled for "${clip(query, 60)}" (${response.lane} lane)`,
    matchOnDescription: true, matchOnDetail: true,
  });
  if (!pick) return;
  if (pick.result.result_type === 'abandoned_warning') {
    if (requireServer(client)) await client.run('cenotaph.showWhy', { approachId: pick.result.id });
  } else if (pick.result.location && pick.result.kind === 'document' && client.running) {
    // A document's chunk: the server opens its file at the lines (window/showDocument). A memory
    // remembered from a selection opens as itself, verbatim: the file may have changed since.
    await client.run('cenotaph.showLocation', { memoryId: pick.result.id });
  } else {
    await pages.show(`memory-${pick.result.id}`, memoryMarkdown(pick.result));
  }
}

/** The running server answers from its loaded model, in milliseconds. */
async function recallWithServer(client: CenotaphClient, document: vscode.TextDocument | undefined, model: LedgerModel,
  query: string): Promise<RecallResponse | undefined> {
  const scope = scopeOf(document, model);
  if (!scope) return undefined;
  try {
    return await client.recall(recallParams(query, scope, RECALL_K));
  } catch (error) {
    void vscode.window.showErrorMessage(`Cenotaph: recall failed: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** Without a running server: `cenotaph recall --json`, a process that loads the model first (seconds). */
async function recallWithCli(client: CenotaphClient, model: LedgerModel, query: string): Promise<RecallResponse | undefined> {
  const argv = client.argv && cliArgv(client.argv, ['recall', '--json', '-k', String(RECALL_K),
    ...(model.project !== undefined ? ['--project', model.project] : []), '--', query.trim()]);
  if (!argv) {
    void vscode.window.showErrorMessage('Cenotaph: Recall runs `cenotaph recall` while the language server is not running, and the server command (`cenotaph.server.command`) does not end in `serve`, or no server was found.');
    return undefined;
  }
  const cwd = model.folder()?.uri.fsPath;
  try {
    const stdout = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Cenotaph: recalling…' },
      () => new Promise<string>((resolve, reject) => {
        execFile(argv[0], argv.slice(1), { cwd, env: process.env, timeout: 120000, maxBuffer: 16 * 1024 * 1024 },
          (error, out, err) => (error ? reject(new Error(clip(String(err || error.message), 500))) : resolve(out)));
      }));
    return parseRecall(stdout);
  } catch (error) {
    void vscode.window.showErrorMessage(`Cenotaph: recall failed: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** What waits for a person: an agent's proposals and the candidates from history, in one list. */
async function showProposals(client: CenotaphClient, model: LedgerModel): Promise<void> {
  if (!requireServer(client)) return;
  await model.refresh();
  const waiting = [...(model.parsed?.proposals ?? []), ...(model.parsed?.candidates ?? [])];
  if (!waiting.length) {
    void vscode.window.showInformationMessage(`Cenotaph: nothing waits for review in ${shortProject(model.project ?? '')}.`);
    return;
  }
  const pick = await vscode.window.showQuickPick(
    waiting.map((entry) => ({ label: entryView(entry).label, description: `#${entry.id}`, detail: entry.reason, entry })),
    { title: `Cenotaph: ${waiting.length} waiting for review`, matchOnDetail: true },
  );
  if (!pick) return;
  const verdicts = pick.entry.kind === 'candidate'
    ? [['Accept as drafted', 'acceptCandidate'], ['Edit the reason, then accept', 'editCandidate'], ['Reject', 'rejectCandidate']]
    : [['Accept', 'acceptProposal'], ['Reject', 'rejectProposal']];
  const verdict = await vscode.window.showQuickPick([...verdicts.map(([label]) => label), 'Show in the ledger'],
    { title: `#${pick.entry.id}: ${pick.label}` });
  const action = verdicts.find(([label]) => label === verdict)?.[1];
  const call = action && itemCommand(action, pick.entry, model.project ?? '');
  if (call) await client.run(call.command, call.argument);
  else if (verdict) await openLedger(client, model, pick.entry.line);
}

/** Candidates from history, now: the server mines the folder's git history and agent transcripts (`cenotaph.mine`). */
async function mineHistory(client: CenotaphClient, model: LedgerModel): Promise<void> {
  if (!requireServer(client)) return;
  const folder = model.folder();
  if (!folder) {
    void vscode.window.showWarningMessage('Cenotaph: open a folder first: its past is what is mined.');
    return;
  }
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Cenotaph: mining this project\'s history…' },
    () => client.run('cenotaph.mine', { uri: folder.uri.toString() }));
}

async function copyMcpEndpoint(client: CenotaphClient): Promise<void> {
  const endpoint = client.endpoint;
  if (!endpoint) {
    void vscode.window.showWarningMessage(client.running
      ? 'Cenotaph: the language server has not reported an MCP endpoint. Agents can run `cenotaph mcp` instead.'
      : 'Cenotaph: the language server is not running, so there is no MCP endpoint.');
    return;
  }
  await vscode.env.clipboard.writeText(mcpClientConfig(endpoint));
  void vscode.window.showInformationMessage(`Cenotaph: copied the MCP endpoint ${endpoint.url} with its bearer token (an MCP client entry, JSON). It changes when the server restarts.`);
}

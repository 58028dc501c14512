// The current project's ledger, and what shows it: the Cenotaph tree view, the status bar item
// and the read-only documents (`cenotaph:` ledgers from the server, `cenotaph-memory:` pages
// rendered here).

import * as vscode from 'vscode';
import { CenotaphClient } from './client';
import { LEDGER_SCHEME } from './fileKinds';
import { LedgerEntry, LedgerResult, parseLedger, ParsedLedger } from './ledger';
import { statusView } from './status';
import { entryView, Section, sections } from './treeModel';

export const MEMORY_SCHEME = 'cenotaph-memory';

/** The ledger of the project the user is working in: the active editor's workspace folder, else the first one. */
export class LedgerModel implements vscode.Disposable {
  result?: LedgerResult;
  parsed?: ParsedLedger;
  error?: string;
  private generation = 0;
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly client: CenotaphClient) {
    this.disposables.push(
      client.onDidChangeState(() => void this.refresh()),
      client.onDidChangeLedger((params) => {
        if (params.uri === this.result?.uri) void this.refresh();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => {
        if (this.folder()?.uri.toString() !== this.folderUri) void this.refresh();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.refresh()),
    );
  }

  private folderUri?: string;

  folder(): vscode.WorkspaceFolder | undefined {
    const active = vscode.window.activeTextEditor?.document.uri;
    return (active && active.scheme === 'file' ? vscode.workspace.getWorkspaceFolder(active) : undefined)
      ?? vscode.workspace.workspaceFolders?.[0];
  }

  get project(): string | undefined {
    return this.result?.project;
  }

  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const folder = this.folder();
    this.folderUri = folder?.uri.toString();
    let result: LedgerResult | undefined;
    let error: string | undefined;
    if (this.client.state === 'starting') {
      error = 'Starting the Cenotaph language server…';
    } else if (!this.client.running) {
      error = this.client.problem ?? 'The Cenotaph language server is not running.';
    } else if (!folder) {
      error = 'Open a folder to see its Cenotaph ledger.';
    } else {
      try {
        result = await this.client.ledger({ uri: folder.uri.toString() });
      } catch (e) {
        error = `Cenotaph: the ledger could not be read: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    if (generation !== this.generation) return; // a newer refresh is under way
    this.result = result;
    this.parsed = result ? parseLedger(result.text, result.project) : undefined;
    this.error = error;
    this.emitter.fire();
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
    this.emitter.dispose();
  }
}

type Node = { type: 'section'; section: Section } | { type: 'entry'; entry: LedgerEntry };

export class LedgerTree implements vscode.TreeDataProvider<Node> {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;

  constructor(private readonly model: LedgerModel) {
    model.onDidChange(() => this.emitter.fire());
  }

  getChildren(node?: Node): Node[] {
    if (!this.model.parsed) return [];
    if (!node) return sections(this.model.parsed, this.model.result?.counts).map((section) => ({ type: 'section', section }));
    if (node.type === 'section') return node.section.entries.map((entry) => ({ type: 'entry', entry }));
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.type === 'section') {
      const { section } = node;
      const state = section.entries.length === 0 ? vscode.TreeItemCollapsibleState.None
        : section.key === 'deprioritised' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded;
      const item = new vscode.TreeItem(section.label, state);
      // A section that fills again is a new item, expanded: the view would otherwise keep the
      // collapsed state of its empty self, hiding a candidate that just arrived.
      item.id = `section:${section.key}:${section.entries.length ? 'listed' : 'empty'}`;
      item.description = String(section.count);
      item.iconPath = new vscode.ThemeIcon(section.icon);
      item.contextValue = 'section';
      return item;
    }
    const view = entryView(node.entry);
    const item = new vscode.TreeItem(view.label, vscode.TreeItemCollapsibleState.None);
    item.id = `${node.entry.kind}:${node.entry.id}`;
    item.description = view.description;
    item.tooltip = view.tooltip;
    item.contextValue = view.contextValue;
    item.iconPath = new vscode.ThemeIcon(view.icon);
    item.command = { title: 'Open in the ledger', command: 'cenotaph.openLedger', arguments: [node.entry.line] };
    return item;
  }

  /** The entry a context-menu command was invoked on. */
  static entryOf(node: unknown): LedgerEntry | undefined {
    const n = node as Node | undefined;
    return n && n.type === 'entry' ? n.entry : undefined;
  }
}

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('cenotaph.status', vscode.StatusBarAlignment.Left, 10);

  constructor(private readonly client: CenotaphClient, private readonly model: LedgerModel) {
    this.item.name = 'Cenotaph';
    client.onDidChangeState(() => this.update());
    model.onDidChange(() => this.update());
    this.update();
    this.item.show();
  }

  update(): void {
    const running = this.client.running;
    const view = statusView({
      state: this.client.state,
      project: this.model.project,
      counts: running ? this.model.result?.counts : undefined,
      detail: running ? undefined : this.client.problem,
    });
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.alert ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.command = running ? 'cenotaph.openLedger' : 'cenotaph.showServerProblem';
  }

  dispose(): void {
    this.item.dispose();
  }
}

/** `cenotaph:ledger/<project>.md`, read through the server's `cenotaph/ledger` request. */
export class LedgerDocuments implements vscode.TextDocumentContentProvider {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly client: CenotaphClient) {
    client.onDidChangeLedger((params) => this.emitter.fire(vscode.Uri.parse(params.uri)));
    client.onDidChangeState(() => {
      for (const document of vscode.workspace.textDocuments) {
        if (document.uri.scheme === LEDGER_SCHEME) this.emitter.fire(document.uri);
      }
    });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    if (!this.client.running) return '# Cenotaph ledger\n\nThe language server is not running: see the Cenotaph output.\n';
    try {
      return (await this.client.ledger({ uri: uri.toString() })).text;
    } catch (error) {
      return `# Cenotaph ledger\n\nIt could not be read: ${error instanceof Error ? error.message : String(error)}\n`;
    }
  }
}

/** Pages the client renders itself: a recalled memory, the story of an approach. */
export class MemoryDocuments implements vscode.TextDocumentContentProvider {
  private readonly pages = new Map<string, string>();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.pages.get(uri.path) ?? '';
  }

  async show(name: string, markdown: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: MEMORY_SCHEME, path: `/${name}.md` });
    this.pages.set(uri.path, markdown);
    this.emitter.fire(uri);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }
}

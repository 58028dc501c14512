// Cenotaph for VS Code: the language server's diagnostics, hovers and code actions, the ledger,
// the Cenotaph view, a status bar item and the agent connection.

import * as vscode from 'vscode';
import { CenotaphClient } from './client';
import { registerCommands } from './commands';
import { registerCompile } from './compile';
import { LEDGER_SCHEME } from './fileKinds';
import { registerLedgerLenses } from './ledgerLenses';
import { registerMcp } from './mcp';
import { needsRestart } from './settings';
import { LedgerDocuments, LedgerModel, LedgerTree, MEMORY_SCHEME, MemoryDocuments, StatusItem } from './views';

let client: CenotaphClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const pages = new MemoryDocuments();
  client = new CenotaphClient(context, (name, markdown) => pages.show(name, markdown));
  const model = new LedgerModel(client);
  const tree = new LedgerTree(model);
  const view = vscode.window.createTreeView('cenotaph.view', { treeDataProvider: tree, showCollapseAll: true });
  model.onDidChange(() => (view.message = model.error));
  context.subscriptions.push(
    client,
    model,
    view,
    new StatusItem(client, model),
    vscode.workspace.registerTextDocumentContentProvider(LEDGER_SCHEME, new LedgerDocuments(client)),
    vscode.workspace.registerTextDocumentContentProvider(MEMORY_SCHEME, pages),
    registerLedgerLenses(client),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('cenotaph')) return;
      if (needsRestart((section) => event.affectsConfiguration(section))) void client?.restart();
      else void client?.pushSettings();
    }),
  );
  registerCommands(context, client, model, pages);
  registerCompile(context, client, model);
  registerMcp(context, client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}

// The ledger is read-only, and VS Code offers no quick fixes (Ctrl+., the light bulb) in a
// read-only editor. The server's code actions on its entries are shown as code lenses instead:
// one row of actions above each entry, running the same server commands.

import * as vscode from 'vscode';
import { CenotaphClient } from './client';
import { LEDGER_SCHEME } from './fileKinds';
import { ENTRY } from './ledger';

export class LedgerLenses implements vscode.CodeLensProvider {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;

  constructor(client: CenotaphClient) {
    client.onDidChangeLedger(() => this.emitter.fire());
    client.onDidChangeState(() => this.emitter.fire());
    // The server's actions on a contradiction name its diagnostic: ask again once it is published.
    vscode.languages.onDidChangeDiagnostics((event) => {
      if (event.uris.some((uri) => uri.scheme === LEDGER_SCHEME)) this.emitter.fire();
    });
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const entries: vscode.Range[] = [];
    for (let line = 0; line < document.lineCount; line++) {
      const text = document.lineAt(line).text;
      if (ENTRY.test(text)) entries.push(new vscode.Range(line, 0, line, text.length));
    }
    const perEntry = await Promise.all(entries.map(async (range) => {
      const actions = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
        'vscode.executeCodeActionProvider', document.uri, range) ?? [];
      return actions
        .map((action) => ('command' in action && typeof action.command === 'object' ? action.command : action as vscode.Command))
        .filter((command) => command?.command?.startsWith('cenotaph.'))
        .map((command) => new vscode.CodeLens(range, command));
    }));
    return perEntry.flat();
  }
}

export function registerLedgerLenses(client: CenotaphClient): vscode.Disposable {
  return vscode.languages.registerCodeLensProvider({ scheme: LEDGER_SCHEME }, new LedgerLenses(client));
}

// The language client: finds and starts `cenotaph serve`, keeps the user told when it cannot run,
// asks for the reasons the server's verbs record, and relays the server's own notifications.

import { ChildProcess, execFile, spawn } from 'child_process';
import * as os from 'os';
import * as readline from 'readline';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  State,
} from 'vscode-languageclient/node';
import { EndpointReport, isEndpointReport } from './endpoint';
import { documentSelector } from './fileKinds';
import { LedgerResult } from './ledger';
import { checkRecall, RECALL_REQUEST, RecallParams, RecallResponse } from './recall';
import { reasonPrompt, withReason } from './reasons';
import { exitMessage, readCheckout, resolveServerCommand, Resolution, Tail } from './serverCommand';
import { serverKeys, serverSettings } from './settings';
import { ServerState } from './status';

/** Commands whose answer is a page to read (Markdown), by the name its page takes. */
const SHOWN_AS_PAGE: Record<string, string> = { 'cenotaph.showWhy': 'why', 'cenotaph.showAnchor': 'anchor' };

export const LEDGER_REQUEST = 'cenotaph/ledger';
export const LEDGER_DID_CHANGE = 'cenotaph/ledgerDidChange';
export const MCP_ENDPOINT = 'cenotaph/mcpEndpoint';

export interface CommandResult {
  done: boolean;
  message: string;
  id?: number | null;
  markdown?: string | null;
  /** The proposals a bulk decision touched (in a preview: would touch). */
  ids?: number[] | null;
}

export interface LedgerDidChange {
  uri: string;
  project: string;
  seq: number;
}

const CRASH_WINDOW_MS = 3 * 60 * 1000;
const MAX_CRASHES = 3;

export class CenotaphClient implements vscode.Disposable {
  readonly output: vscode.LogOutputChannel;
  state: ServerState = 'stopped';
  /** Why it is not running, in words for the user. */
  problem?: string;
  argv?: string[];
  endpoint?: EndpointReport;

  private client?: LanguageClient;
  private readonly tail = new Tail();
  private crashes: number[] = [];
  private stopping = false;
  private ran = false;
  private exited?: Promise<{ code: number | null; signal: string | null }>;
  private starting?: Promise<void>;
  private readonly stateEmitter = new vscode.EventEmitter<void>();
  private readonly ledgerEmitter = new vscode.EventEmitter<LedgerDidChange>();
  private readonly endpointEmitter = new vscode.EventEmitter<EndpointReport | undefined>();
  private readonly showMarkdown: (title: string, markdown: string) => Promise<void>;
  readonly onDidChangeState = this.stateEmitter.event;
  readonly onDidChangeLedger = this.ledgerEmitter.event;
  readonly onDidChangeEndpoint = this.endpointEmitter.event;

  constructor(private readonly context: vscode.ExtensionContext, showMarkdown: (title: string, markdown: string) => Promise<void>) {
    this.output = vscode.window.createOutputChannel('Cenotaph', { log: true });
    this.showMarkdown = showMarkdown;
  }

  get running(): boolean {
    return this.state === 'running' && this.client !== undefined;
  }

  // --- lifecycle ------------------------------------------------------------------------------

  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.setEndpoint(undefined);
    if (client) {
      this.stopping = true;
      try {
        if (client.state !== State.Stopped) await client.stop(3000);
      } catch (error) {
        this.output.warn(`stopping the server: ${String(error)}`);
      } finally {
        await client.dispose().catch(() => undefined);
        this.stopping = false;
      }
    }
    this.setState('stopped');
  }

  async restart(): Promise<void> {
    this.crashes = [];
    await this.stop();
    await this.start();
  }

  private async doStart(): Promise<void> {
    this.problem = undefined;
    this.setState('starting');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const resolution = await this.resolve(folder);
    if ('problem' in resolution) {
      this.output.error(resolution.problem);
      this.fail('notFound', resolution.problem, ['Open Settings', 'Retry']);
      return;
    }
    this.argv = resolution.argv;
    this.output.info(`starting ${JSON.stringify(resolution.argv)} (from ${resolution.source})`);
    const client = new LanguageClient('cenotaph', 'Cenotaph', () => this.spawn(resolution.argv, folder), this.options());
    client.onNotification(LEDGER_DID_CHANGE, (params: LedgerDidChange) => this.ledgerEmitter.fire(params));
    client.onNotification(MCP_ENDPOINT, (params: unknown) => {
      if (isEndpointReport(params)) this.setEndpoint(params);
      else this.output.warn(`ignoring a malformed ${MCP_ENDPOINT} notification`);
    });
    this.ran = false;
    client.onDidChangeState((event) => {
      if (event.newState === State.Running) {
        this.ran = true;
        this.setState('running');
      } else if (event.newState === State.Starting) this.setState('starting');
    });
    this.client = client;
    try {
      await client.start();
      this.setState('running');
    } catch (error) {
      const exit = await this.exitedSoon();
      const message = exit ? exitMessage(exit.code, exit.signal, this.tail.reason())
        : `Cenotaph: the language server did not start: ${error instanceof Error ? error.message : String(error)}`;
      this.output.error(message);
      this.client = undefined;
      await client.dispose().catch(() => undefined);
      this.fail('failed', message, ['Restart', 'Show Output', 'Open Settings']);
    }
  }

  private async resolve(folder: string | undefined): Promise<Resolution> {
    return resolveServerCommand({
      setting: vscode.workspace.getConfiguration('cenotaph').get('server.command'),
      env: process.env,
      workspaceFolder: folder,
      checkout: readCheckout(this.context.extensionPath),
      pythonInterpreter: () => pythonInterpreter(vscode.workspace.workspaceFolders?.[0]?.uri),
      hasCenotaph: (python) => new Promise((resolve) => {
        execFile(python, ['-c', 'import cenotaph.cli'], { timeout: 30000 }, (error) => resolve(!error));
      }),
    });
  }

  private async spawn(argv: string[], folder: string | undefined): Promise<ChildProcess> {
    this.tail.clear();
    const child = spawn(argv[0], argv.slice(1), { cwd: folder ?? os.homedir(), env: process.env, stdio: 'pipe' });
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => resolve({ code, signal }));
      child.on('error', (error) => {
        this.tail.push(`error: ${error.message}\n`);
        resolve({ code: null, signal: null });
      });
    });
    return child;
  }

  private async exitedSoon(ms = 1500): Promise<{ code: number | null; signal: string | null } | undefined> {
    if (!this.exited) return undefined;
    return Promise.race([this.exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))]);
  }

  /** The server's settings (shared_schema/settings.schema.json) as the user has them now. */
  private settings(): Record<string, unknown> {
    const contributed = this.context.extension.packageJSON.contributes.configuration.properties as Record<string, unknown>;
    const config = vscode.workspace.getConfiguration('cenotaph');
    return serverSettings(serverKeys(contributed), (key) => config.get(key));
  }

  private options(): LanguageClientOptions {
    const settings = () => this.settings();
    return {
      documentSelector: documentSelector(),
      outputChannel: this.output,
      diagnosticCollectionName: 'cenotaph',
      initializationOptions: settings(),
      stdioOptions: {
        stdout: () => undefined, // the protocol's stream
        stderr: (input, channel) => {
          readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on('line', (line) => {
            this.tail.push(line + '\n');
            channel.appendLine(line);
          });
        },
      },
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue, handled: true }),
        closed: async () => {
          // A server that never came up is reported by start(); restarting it would fail the same way.
          if (this.stopping || !this.ran) return { action: CloseAction.DoNotRestart, handled: true };
          const now = Date.now();
          this.crashes = [...this.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
          const exit = await this.exitedSoon();
          const message = exitMessage(exit?.code ?? null, exit?.signal ?? null, this.tail.reason());
          this.output.error(message);
          this.setEndpoint(undefined);
          if (this.crashes.length < MAX_CRASHES) {
            this.output.info('restarting the language server');
            return { action: CloseAction.Restart, handled: true };
          }
          this.client = undefined;
          this.fail('failed', message, ['Restart', 'Show Output', 'Open Settings']);
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
      middleware: {
        // Code actions run the server's commands through here: ask for the reason first.
        executeCommand: (command, args, next) => this.execute(command, args[0], (cmd, arg) => next(cmd, [arg])),
        workspace: {
          // The server asks for the `cenotaph` section: answer with its settings, not the client's.
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            return Array.isArray(answers)
              ? params.items.map((item, i) => (item.section === 'cenotaph' ? settings() : answers[i]))
              : answers;
          },
        },
      },
    };
  }

  /** Settings other than the command line: pushed to the running server, which applies them live. */
  async pushSettings(): Promise<void> {
    if (!this.running) return;
    await this.client!.sendNotification('workspace/didChangeConfiguration', { settings: this.settings() });
  }

  private setState(state: ServerState): void {
    this.state = state;
    this.stateEmitter.fire();
  }

  private setEndpoint(report: EndpointReport | undefined): void {
    if (this.endpoint === report) return;
    this.endpoint = report;
    if (report) this.output.info(`MCP endpoint for ${report.project || 'the global scope'}: ${report.url}`);
    this.endpointEmitter.fire(report);
  }

  private fail(state: ServerState, message: string, actions: string[]): void {
    this.problem = message;
    this.setState(state);
    void this.showProblem(actions);
  }

  /** The reason the server is not running, with what the user can do about it. */
  async showProblem(actions: string[] = ['Restart', 'Show Output', 'Open Settings']): Promise<void> {
    const choice = await vscode.window.showErrorMessage(this.problem ?? 'Cenotaph: the language server is not running.', ...actions);
    if (choice === 'Restart' || choice === 'Retry') await this.restart();
    else if (choice === 'Show Output') this.output.show(true);
    else if (choice === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'cenotaph.server.command');
  }

  // --- requests -------------------------------------------------------------------------------

  async ledger(params: { project?: string; uri?: string }): Promise<LedgerResult> {
    if (!this.running) throw new Error('the language server is not running');
    return this.client!.sendRequest<LedgerResult>(LEDGER_REQUEST, params);
  }

  /** Recall through the running server: no process, the model is loaded already. */
  async recall(params: RecallParams): Promise<RecallResponse> {
    if (!this.running) throw new Error('the language server is not running');
    return checkRecall(await this.client!.sendRequest(RECALL_REQUEST, params), RECALL_REQUEST);
  }

  /** A custom request of shared_schema/ (e.g. `cenotaph/compile`). */
  async request<T>(method: string, params: unknown): Promise<T> {
    if (!this.running) throw new Error('the language server is not running');
    return this.client!.sendRequest<T>(method, params);
  }

  /** Run one of the server's commands (shared_schema/commands.schema.json), asking for its reason
   * with an input box when it needs one; shows the outcome. Undefined when cancelled or failed. */
  run(command: string, arg: Record<string, unknown>): Promise<CommandResult | undefined> {
    return this.execute(command, arg, (cmd, a) => this.client!.sendRequest(ExecuteCommandRequest.type, { command: cmd, arguments: [a] }));
  }

  /** A command's answer with nothing shown and no reason asked: a bulk decision's preview. */
  async preview(command: string, arg: Record<string, unknown>): Promise<CommandResult | undefined> {
    if (!this.running) {
      void this.showProblem();
      return undefined;
    }
    try {
      return (await this.client!.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] })) as CommandResult;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.output.error(`${command}: ${message}`);
      void vscode.window.showErrorMessage(`Cenotaph: ${message}`);
      return undefined;
    }
  }

  private async execute(command: string, arg: unknown,
    send: (command: string, arg: unknown) => Thenable<unknown> | Promise<unknown>): Promise<CommandResult | undefined> {
    if (!this.running) {
      void this.showProblem();
      return undefined;
    }
    let argument = arg;
    const prompt = reasonPrompt(command, arg);
    if (prompt) {
      const reason = await vscode.window.showInputBox({
        title: 'Cenotaph',
        prompt: prompt.prompt,
        placeHolder: prompt.placeHolder,
        value: prompt.value,
        ignoreFocusOut: true,
        validateInput: (value) => (value.trim() ? undefined : 'A reason is kept with every change: say why.'),
      });
      if (reason === undefined) return undefined;
      argument = withReason(arg, reason);
    }
    let result: CommandResult;
    try {
      result = (await send(command, argument)) as CommandResult;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.output.error(`${command}: ${message}`);
      void vscode.window.showErrorMessage(`Cenotaph: ${message}`);
      return undefined;
    }
    if (result && typeof result === 'object') {
      const page = SHOWN_AS_PAGE[command];
      if (page && result.markdown) {
        await this.showMarkdown(`${page}-${result.id ?? 'approach'}`, result.markdown);
      } else if (result.done) {
        void vscode.window.showInformationMessage(`Cenotaph: ${result.message}`);
      } else if (result.message !== 'cancelled') {
        void vscode.window.showWarningMessage(`Cenotaph: ${result.message}`);
      }
    }
    return result;
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
    this.ledgerEmitter.dispose();
    this.endpointEmitter.dispose();
    this.output.dispose();
  }
}

/** The interpreter selected in the Python extension (ms-python.python), if it is installed. */
async function pythonInterpreter(folder: vscode.Uri | undefined): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension('ms-python.python');
  if (!extension) return undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const api: any = extension.isActive ? extension.exports : await extension.activate();
    const active = api?.environments?.getActiveEnvironmentPath?.(folder);
    if (active) {
      const resolved = await api.environments.resolveEnvironment?.(active);
      return resolved?.executable?.uri?.fsPath ?? active.path;
    }
    return api?.settings?.getExecutionDetails?.(folder)?.execCommand?.[0];
  } catch {
    return undefined;
  }
}

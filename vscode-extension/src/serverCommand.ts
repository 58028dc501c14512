// Which command line starts the language server: `cenotaph.server.command`, else `cenotaph` on
// PATH, else the checkout's own `.venv/bin/cenotaph` when `make vsix` built this package there,
// else the Python extension's interpreter with `-m cenotaph.cli serve`. When none works the
// answer is a message that says what to do.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export type Source = 'setting' | 'path' | 'checkout' | 'python';
export type Resolution = { argv: string[]; source: Source } | { problem: string; source?: Source };

export interface ResolveInput {
  setting: unknown;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  workspaceFolder?: string;
  /** The `cenotaph` of the checkout this package was built in (see readCheckout). */
  checkout?: string;
  /** The interpreter selected in the Python extension, if it is installed. */
  pythonInterpreter?: () => Promise<string | undefined>;
  /** Whether that interpreter can import cenotaph. */
  hasCenotaph?: (python: string) => Promise<boolean>;
}

const INSTALL_HINT = 'Install it (`pip install cenotaph`, or `make setup` in a checkout) so that `cenotaph` is on PATH, ' +
  'select a Python interpreter that has it, or set `cenotaph.server.command`.';
export const NOT_FOUND = `Cenotaph: the language server (\`cenotaph serve\`) was not found. ${INSTALL_HINT}`;

export function expand(value: string, workspaceFolder?: string): string {
  let out = value.replace(/^~(?=$|[/\\])/, os.homedir());
  if (workspaceFolder !== undefined) out = out.split('${workspaceFolder}').join(workspaceFolder);
  return out;
}

/** The setting as a command line, undefined when empty (automatic), or a problem. */
export function fromSetting(value: unknown, workspaceFolder?: string): string[] | undefined | { problem: string } {
  if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) return undefined;
  if (typeof value === 'string') return [expand(value.trim(), workspaceFolder), 'serve'];
  if (Array.isArray(value) && value.every((part) => typeof part === 'string') && value[0].trim()) {
    return value.map((part: string) => expand(part, workspaceFolder));
  }
  return { problem: 'Cenotaph: `cenotaph.server.command` must be the path of the `cenotaph` executable or a list of strings (the whole command line).' };
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The full path of a program on PATH (PATHEXT on Windows), or undefined. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  const windows = platform === 'win32';
  const dirs = (env.PATH ?? env.Path ?? '').split(windows ? ';' : ':').filter(Boolean);
  const extensions = windows ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of dirs) {
    for (const extension of extensions) {
      const candidate = path.join(dir, name + extension);
      if (executable(candidate)) return candidate;
    }
  }
  return undefined;
}

export async function resolveServerCommand(input: ResolveInput): Promise<Resolution> {
  const configured = fromSetting(input.setting, input.workspaceFolder);
  if (configured !== undefined) {
    if ('problem' in configured) return { problem: configured.problem, source: 'setting' };
    const program = configured[0];
    const found = path.isAbsolute(program) || program.includes('/') ? (executable(program) ? program : undefined)
      : findOnPath(program, input.env, input.platform);
    if (!found) {
      return { source: 'setting', problem: `Cenotaph: \`cenotaph.server.command\` starts \`${program}\`, which is not an executable file${path.isAbsolute(program) ? '' : ' on PATH'}. Fix the setting or clear it to find \`cenotaph\` automatically.` };
    }
    return { argv: configured, source: 'setting' };
  }
  const onPath = findOnPath('cenotaph', input.env, input.platform);
  if (onPath) return { argv: [onPath, 'serve'], source: 'path' };
  if (input.checkout && executable(input.checkout)) return { argv: [input.checkout, 'serve'], source: 'checkout' };
  const python = input.pythonInterpreter ? await input.pythonInterpreter() : undefined;
  if (python) {
    if (!input.hasCenotaph || await input.hasCenotaph(python)) {
      return { argv: [python, '-m', 'cenotaph.cli', 'serve'], source: 'python' };
    }
    return {
      source: 'python',
      problem: `Cenotaph: \`cenotaph\` is not on PATH, and the Python interpreter selected in the Python extension (${python}) ` +
        `cannot import it. Install it there (\`${python} -m pip install cenotaph\`) or set \`cenotaph.server.command\`.`,
    };
  }
  return { problem: NOT_FOUND };
}

/** `make vsix` writes `checkout.json` (`{"cenotaph": "<checkout>/.venv/bin/cenotaph"}`) into the
 * package, so that an extension built from a clone finds that clone's server without PATH. */
export const CHECKOUT_FILE = 'checkout.json';

export function readCheckout(extensionPath: string): string | undefined {
  try {
    const recorded = JSON.parse(fs.readFileSync(path.join(extensionPath, CHECKOUT_FILE), 'utf8')).cenotaph;
    return typeof recorded === 'string' && path.isAbsolute(recorded) ? recorded : undefined;
  } catch {
    return undefined;
  }
}

/** The same program's command line for a CLI verb (`serve` replaced), or undefined when the server
 * command does not end in `serve` (a wrapper script, say). */
export function cliArgv(serverArgv: string[], args: string[]): string[] | undefined {
  const at = serverArgv.lastIndexOf('serve');
  if (at < 0) return undefined;
  return [...serverArgv.slice(0, at), ...args, ...serverArgv.slice(at + 1)];
}

/** The last lines a process wrote to stderr, for a message that says why it exited. */
export class Tail {
  private lines: string[] = [];
  private partial = '';
  constructor(private readonly keep = 20) {}

  push(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    this.lines.push(...parts.filter((line) => line.trim()));
    if (this.lines.length > this.keep) this.lines.splice(0, this.lines.length - this.keep);
  }

  /** The most telling line: the last `error:` line, else the last line. */
  reason(): string | undefined {
    const all = this.partial.trim() ? [...this.lines, this.partial] : this.lines;
    return [...all].reverse().find((line) => /error/i.test(line)) ?? all[all.length - 1];
  }

  clear(): void {
    this.lines = [];
    this.partial = '';
  }
}

export function exitMessage(code: number | null, signal: string | null, reason: string | undefined): string {
  const how = signal ? `was killed (${signal})` : `exited (code ${code})`;
  return `Cenotaph: the language server ${how}${reason ? `: ${reason}` : ''}. Diagnostics and commands are off until it runs again.`;
}

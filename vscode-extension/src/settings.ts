// The server's settings (shared_schema/settings.schema.json) from VS Code's `cenotaph.*` settings.
// package.json's contributed keys are generated from that schema, so they are the list of what to
// send; the client-only keys below stay in the editor.

const SECTION = 'cenotaph.';
const CLIENT_ONLY = ['server.', 'trace.'];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The dotted keys (relative to `cenotaph.`) that the server reads, from package.json's contributions. */
export function serverKeys(contributed: Record<string, unknown>): string[] {
  return Object.keys(contributed)
    .filter((key) => key.startsWith(SECTION))
    .map((key) => key.slice(SECTION.length))
    .filter((key) => !CLIENT_ONLY.some((prefix) => key.startsWith(prefix)));
}

/** `{severity: {project: …}, otherProjects: …}` built from dotted keys and a lookup of their values. */
export function serverSettings(keys: string[], get: (key: string) => unknown): { [key: string]: Json } {
  const settings: { [key: string]: Json } = {};
  for (const key of keys) {
    const value = get(key);
    if (value === undefined) continue;
    const parts = key.split('.');
    let node = settings;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      node = next !== null && typeof next === 'object' && !Array.isArray(next) ? next : (node[part] = {});
    }
    node[parts[parts.length - 1]] = value as Json;
  }
  return settings;
}

/** Whether a configuration change needs a new server process (its command line) rather than a settings push. */
export function needsRestart(affects: (section: string) => boolean): boolean {
  return affects('cenotaph.server');
}

// The MCP endpoint the language server reports (shared_schema/endpoint.schema.json).

export interface EndpointReport {
  url: string;
  token: string;
  project: string;
}

export function isEndpointReport(value: unknown): value is EndpointReport {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.url === 'string' && /^http:\/\/127\.0\.0\.1:[0-9]{1,5}\//.test(v.url) &&
    typeof v.token === 'string' && v.token.length >= 32 && typeof v.project === 'string';
}

/** What Copy MCP Endpoint puts on the clipboard: an MCP client entry (VS Code's `mcp.json` shape,
 * which other agents' HTTP entries share) naming the URL and its bearer token. */
export function mcpClientConfig(report: EndpointReport): string {
  return JSON.stringify({
    servers: {
      cenotaph: { type: 'http', url: report.url, headers: { Authorization: `Bearer ${report.token}` } },
    },
  }, null, 2);
}

/** VS Code's MCP server definition API (stable since 1.101), when the running VS Code has it. */
export interface McpApi {
  register(id: string, provider: unknown): { dispose(): void };
  definition(label: string, uri: unknown, headers: Record<string, string>, version?: string): unknown;
}

export function detectMcpApi(vscodeNamespace: unknown, parseUri: (url: string) => unknown): McpApi | undefined {
  const ns = vscodeNamespace as {
    lm?: { registerMcpServerDefinitionProvider?: (id: string, provider: unknown) => { dispose(): void } };
    McpHttpServerDefinition?: new (label: string, uri: unknown, headers?: Record<string, string>, version?: string) => unknown;
  };
  const register = ns.lm?.registerMcpServerDefinitionProvider;
  const Definition = ns.McpHttpServerDefinition;
  if (typeof register !== 'function' || typeof Definition !== 'function') return undefined;
  return {
    register: (id, provider) => register.call(ns.lm, id, provider),
    definition: (label, url, headers, version) => new Definition(label, parseUri(url as string), headers, version),
  };
}

/** The definition's label, URL and headers for a report. */
export function mcpDefinition(report: EndpointReport): { label: string; url: string; headers: Record<string, string> } {
  const project = report.project ? report.project.split(/[/\\:]/).filter(Boolean).pop() ?? report.project : 'global';
  return { label: `Cenotaph (${project})`, url: report.url, headers: { Authorization: `Bearer ${report.token}` } };
}

/** package.json `contributes.mcpServerDefinitionProviders` id. */
export const MCP_PROVIDER_ID = 'cenotaph.mcp';

// The agent connection: the server's MCP endpoint registered with VS Code's MCP server definition
// API, so the editor's own agent talks to the same process. The API is stable from VS Code 1.101
// (contribution point `mcpServerDefinitionProviders`); 1.100 has it only as a proposal (contribution
// point `modelContextServerCollections`), which stock builds refuse and code-server allows. Where it
// is missing or refused, the endpoint is offered through Copy MCP Endpoint.

import * as vscode from 'vscode';
import { CenotaphClient } from './client';
import { detectMcpApi, MCP_PROVIDER_ID, mcpDefinition } from './endpoint';



export function registerMcp(context: vscode.ExtensionContext, client: CenotaphClient): boolean {
  const api = detectMcpApi(vscode, (url) => vscode.Uri.parse(url));
  if (!api) {
    client.output.info(`VS Code ${vscode.version} has no MCP server definition API: use "Cenotaph: Copy MCP Endpoint" for agents`);
    return false;
  }
  const changed = new vscode.EventEmitter<void>();
  const version = String(context.extension.packageJSON.version);
  let registration: vscode.Disposable;
  try {
    registration = api.register(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      onDidChangeServerDefinitions: changed.event, // the 1.100 proposal's name for it
      provideMcpServerDefinitions: () => {
        const report = client.endpoint;
        if (!report) return [];
        const { label, url, headers } = mcpDefinition(report);
        return [api.definition(label, url, headers, version)];
      },
      resolveMcpServerDefinition: (definition: unknown) => definition,
    });
  } catch (error) {
    changed.dispose();
    client.output.info(`VS Code ${vscode.version} refused the MCP server definition provider (${error instanceof Error ? error.message : String(error)}): use "Cenotaph: Copy MCP Endpoint" for agents`);
    return false;
  }
  context.subscriptions.push(changed, registration, client.onDidChangeEndpoint(() => changed.fire()));
  client.output.info('registered the MCP server definition provider');
  return true;
}

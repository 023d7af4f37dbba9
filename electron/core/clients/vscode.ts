import { normalizeServer, stdioNative, type ClientDefinition } from './client-definition.js';
import { electronAppFolder, pathsOf } from './os-paths.js';

/** VS Code: the user `mcp.json` (JSONC) with a top-level `servers` table and `"type": "http"`. */
export const vscode: ClientDefinition = {
  id: 'vscode',
  displayName: 'VS Code',
  format: 'json',
  commentsAllowed: true,
  kinds: ['http', 'stdio'],
  serversPath: ['servers'],
  async locate(os) {
    const app = electronAppFolder(os, 'Code');
    return { files: [pathsOf(os).join(app, 'User', 'mcp.json')], installDirs: [app] };
  },
  toNative: (entry) => (entry.kind === 'http' ? { type: 'http', url: entry.url, headers: { ...entry.headers } } : stdioNative(entry, 'stdio')),
  fromNative: (name, value, file) => normalizeServer(name, value, file, { untypedUrl: 'http' }),
  ownedKeys: ['type', 'command', 'args', 'env', 'url', 'headers'],
  restartRequired: false,
  restartHint: 'VS Code reloads mcp.json by itself; start Spillway from the MCP servers list (or the Chat tools menu) if it is not running.',
};

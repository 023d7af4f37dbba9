import { normalizeServer, stdioNative, type ClientDefinition } from './client-definition.js';
import { inHome } from './os-paths.js';

/** Cursor: `~/.cursor/mcp.json` on every OS, `mcpServers` with `url` + `headers`. */
export const cursor: ClientDefinition = {
  id: 'cursor',
  displayName: 'Cursor',
  format: 'json',
  commentsAllowed: false,
  kinds: ['http', 'stdio'],
  serversPath: ['mcpServers'],
  async locate(os) {
    return { files: [inHome(os, '.cursor', 'mcp.json')], installDirs: [inHome(os, '.cursor')] };
  },
  toNative: (entry) => (entry.kind === 'http' ? { url: entry.url, headers: { ...entry.headers } } : stdioNative(entry)),
  fromNative: (name, value, file) => normalizeServer(name, value, file),
  ownedKeys: ['type', 'command', 'args', 'env', 'url', 'headers'],
  restartRequired: false,
  restartHint: 'Cursor picks up the change by itself; if Spillway does not appear, open Cursor Settings → MCP and refresh it.',
};

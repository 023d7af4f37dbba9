import { normalizeServer, stdioNative, type ClientDefinition } from './client-definition.js';
import { inHome } from './os-paths.js';

/** LM Studio: `~/.lmstudio/mcp.json` (Cursor's notation: `mcpServers`, `url` + `headers`). */
export const lmStudio: ClientDefinition = {
  id: 'lm-studio',
  displayName: 'LM Studio',
  format: 'json',
  commentsAllowed: false,
  kinds: ['http', 'stdio'],
  serversPath: ['mcpServers'],
  async locate(os) {
    return { files: [inHome(os, '.lmstudio', 'mcp.json')], installDirs: [inHome(os, '.lmstudio')] };
  },
  toNative: (entry) => (entry.kind === 'http' ? { url: entry.url, headers: { ...entry.headers } } : stdioNative(entry)),
  fromNative: (name, value, file) => normalizeServer(name, value, file),
  ownedKeys: ['type', 'command', 'args', 'env', 'url', 'headers'],
  restartRequired: false,
  restartHint: "LM Studio reloads mcp.json by itself; enable Spillway in the chat's Program/Integrations panel.",
};

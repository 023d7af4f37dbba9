import { normalizeServer, stdioNative, type ClientDefinition } from './client-definition.js';
import { inHome } from './os-paths.js';

/** Windsurf: `~/.codeium/windsurf/mcp_config.json`, `mcpServers` with `serverUrl` + `headers`. */
export const windsurf: ClientDefinition = {
  id: 'windsurf',
  displayName: 'Windsurf',
  format: 'json',
  commentsAllowed: false,
  kinds: ['http', 'stdio'],
  serversPath: ['mcpServers'],
  async locate(os) {
    return {
      files: [inHome(os, '.codeium', 'windsurf', 'mcp_config.json')],
      installDirs: [inHome(os, '.codeium', 'windsurf')],
    };
  },
  toNative: (entry) => (entry.kind === 'http' ? { serverUrl: entry.url, headers: { ...entry.headers } } : stdioNative(entry)),
  fromNative: (name, value, file) =>
    normalizeServer(name, value, file, {
      urlKeys: [
        ['serverUrl', 'http'],
        ['url', 'by-type'],
      ],
    }),
  ownedKeys: ['type', 'command', 'args', 'env', 'serverUrl', 'url', 'headers'],
  restartRequired: false,
  restartHint: 'In Windsurf, open the MCP servers panel (Cascade → plugins) and press Refresh.',
};

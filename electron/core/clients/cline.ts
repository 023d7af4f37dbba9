import { normalizeServer, stdioNative, type ClientDefinition } from './client-definition.js';
import { electronAppFolder, inHome, pathsOf } from './os-paths.js';

const EXTENSION = 'saoudrizwan.claude-dev';
const FILE = 'cline_mcp_settings.json';

/**
 * Cline: the VS Code extension's `globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`
 * (current), and `~/.cline/data/settings/cline_mcp_settings.json` (`$CLINE_DIR`), where the Cline CLI
 * and newer builds keep it. Both are read; writes go to the one that exists, the extension's first.
 */
export const cline: ClientDefinition = {
  id: 'cline',
  displayName: 'Cline',
  format: 'json',
  commentsAllowed: false,
  kinds: ['http', 'stdio'],
  serversPath: ['mcpServers'],
  async locate(os) {
    const p = pathsOf(os);
    const storage = p.join(electronAppFolder(os, 'Code'), 'User', 'globalStorage', EXTENSION);
    const custom = os.env.CLINE_DIR;
    const clineDir = custom && custom.trim() !== '' ? custom : inHome(os, '.cline');
    return {
      files: [p.join(storage, 'settings', FILE), p.join(clineDir, 'data', 'settings', FILE)],
      installDirs: [storage, clineDir],
    };
  },
  toNative: (entry) =>
    entry.kind === 'http' ? { type: 'streamableHttp', url: entry.url, headers: { ...entry.headers } } : stdioNative(entry, 'stdio'),
  // Cline reads a `url` without `type` as SSE (its older default).
  fromNative: (name, value, file) => normalizeServer(name, value, file, { untypedUrl: 'sse' }),
  ownedKeys: ['type', 'transportType', 'command', 'args', 'env', 'url', 'headers'],
  restartRequired: false,
  restartHint: 'Cline watches this file; Spillway appears in its MCP Servers panel (press Restart there if it shows an error).',
};

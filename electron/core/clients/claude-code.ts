import { normalizeServer, stdioNative, type ClientDefinition } from './client-definition.js';
import { inHome, pathsOf } from './os-paths.js';

/**
 * Claude Code: user-scope `mcpServers` in `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`).
 * The running program rewrites this file often; the safe write re-reads and re-applies on change.
 */
export const claudeCode: ClientDefinition = {
  id: 'claude-code',
  displayName: 'Claude Code',
  format: 'json',
  commentsAllowed: false,
  kinds: ['http', 'stdio'],
  serversPath: ['mcpServers'],
  async locate(os) {
    const custom = os.env.CLAUDE_CONFIG_DIR;
    if (custom && custom.trim() !== '') {
      return { files: [pathsOf(os).join(custom, '.claude.json')], installDirs: [custom] };
    }
    return { files: [inHome(os, '.claude.json')], installDirs: [inHome(os, '.claude')] };
  },
  toNative: (entry) => (entry.kind === 'http' ? { type: 'http', url: entry.url, headers: { ...entry.headers } } : stdioNative(entry, 'stdio')),
  fromNative: (name, value, file) => normalizeServer(name, value, file, { untypedUrl: 'http' }),
  ownedKeys: ['type', 'command', 'args', 'env', 'url', 'headers'],
  restartRequired: true,
  restartHint: 'Start a new Claude Code session (or run /mcp) to see Spillway; sessions already running keep their old servers.',
};

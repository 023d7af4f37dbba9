import { normalizeServer, stdioNative, type ClientDefinition } from './client-definition.js';
import { inHome, pathsOf } from './os-paths.js';

/**
 * Codex CLI: `[mcp_servers.spillway]` in `~/.codex/config.toml` (or `$CODEX_HOME/config.toml`).
 *
 * Preferred kind is stdio (the bridge): every Codex version runs `command`/`args`, while Streamable
 * HTTP (`url`) needed the `experimental_use_rmcp_client` flag in the 0.4x releases (openai/codex#4317).
 * An http entry is still written when asked for: `url` plus `http_headers` holding the Authorization
 * header (Codex rejects an inline `bearer_token`; `bearer_token_env_var` would need the token in
 * Codex's environment, which Spillway cannot set).
 */
export const codex: ClientDefinition = {
  id: 'codex',
  displayName: 'Codex CLI',
  format: 'toml',
  commentsAllowed: true,
  kinds: ['stdio', 'http'],
  serversPath: ['mcp_servers'],
  async locate(os) {
    const custom = os.env.CODEX_HOME;
    const dir = custom && custom.trim() !== '' ? custom : inHome(os, '.codex');
    return { files: [pathsOf(os).join(dir, 'config.toml')], installDirs: [dir] };
  },
  toNative: (entry) => (entry.kind === 'http' ? { url: entry.url, http_headers: { ...entry.headers } } : stdioNative(entry)),
  fromNative: (name, value, file) => normalizeServer(name, value, file, { urlKeys: [['url', 'http']], headerKeys: ['http_headers', 'headers'] }),
  ownedKeys: ['command', 'args', 'env', 'url', 'http_headers', 'bearer_token_env_var', 'bearer_token'],
  restartRequired: true,
  restartHint: 'Start Codex again: it reads config.toml when it starts.',
};

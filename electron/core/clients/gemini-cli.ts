import { normalizeServer, stdioNative, type ClientDefinition } from './client-definition.js';
import { inHome } from './os-paths.js';

/** Gemini CLI: `~/.gemini/settings.json`, `mcpServers` with `httpUrl` (Streamable HTTP; its `url` means SSE). */
export const geminiCli: ClientDefinition = {
  id: 'gemini-cli',
  displayName: 'Gemini CLI',
  format: 'json',
  commentsAllowed: true,
  kinds: ['http', 'stdio'],
  serversPath: ['mcpServers'],
  async locate(os) {
    return { files: [inHome(os, '.gemini', 'settings.json')], installDirs: [inHome(os, '.gemini')] };
  },
  toNative: (entry) => (entry.kind === 'http' ? { httpUrl: entry.url, headers: { ...entry.headers } } : stdioNative(entry)),
  fromNative: (name, value, file) =>
    normalizeServer(name, value, file, {
      urlKeys: [
        ['httpUrl', 'http'],
        ['url', 'sse'],
      ],
    }),
  ownedKeys: ['type', 'command', 'args', 'env', 'httpUrl', 'url', 'headers'],
  restartRequired: true,
  restartHint: 'Start Gemini CLI again: it reads its settings when it starts.',
};

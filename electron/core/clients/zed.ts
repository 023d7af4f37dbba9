import { posix, win32 } from 'node:path';
import { isRecord, normalizeServer, type ClientDefinition } from './client-definition.js';
import { appData, xdgConfig } from './os-paths.js';

/**
 * Zed: `context_servers` in its settings.json (JSONC): `~/.config/zed` on macOS and Linux (XDG honoured
 * on Linux), `%APPDATA%\Zed` on Windows. Remote servers are `{url, headers}`; local ones
 * `{command, args, env}` (older Zed nested them as `command: {path, args, env}`, still read).
 */
export const zed: ClientDefinition = {
  id: 'zed',
  displayName: 'Zed',
  format: 'json',
  commentsAllowed: true,
  kinds: ['http', 'stdio'],
  serversPath: ['context_servers'],
  async locate(os) {
    let dir: string;
    if (os.platform === 'win32') dir = win32.join(appData(os), 'Zed');
    else if (os.platform === 'darwin') dir = posix.join(os.home, '.config', 'zed');
    else dir = posix.join(xdgConfig(os), 'zed');
    const join = os.platform === 'win32' ? win32.join : posix.join;
    return { files: [join(dir, 'settings.json')], installDirs: [dir] };
  },
  toNative(entry) {
    if (entry.kind === 'http') return { url: entry.url, headers: { ...entry.headers } };
    const out: Record<string, unknown> = { command: entry.command, args: [...entry.args] };
    if (entry.env && Object.keys(entry.env).length > 0) out.env = { ...entry.env };
    return out;
  },
  fromNative(name, value, file) {
    if (isRecord(value) && isRecord(value.command)) {
      const legacy = value.command;
      return normalizeServer(name, { ...value, command: legacy.path, args: legacy.args, env: legacy.env }, file);
    }
    return normalizeServer(name, value, file);
  },
  ownedKeys: ['command', 'args', 'env', 'url', 'headers'],
  restartRequired: false,
  restartHint: "Zed reloads its settings by itself; Spillway appears in the Agent panel's MCP servers.",
};

import { posix, win32 } from 'node:path';
import { UnsupportedEntryError } from './config-errors.js';
import { normalizeServer, stdioNative, type ClientDefinition, type ConfigLocation } from './client-definition.js';
import { appData, localAppData, xdgConfig, type ListDir } from './os-paths.js';
import type { OsFacts } from './types.js';

const FILE = 'claude_desktop_config.json';

/**
 * macOS `~/Library/Application Support/Claude`, Linux `$XDG_CONFIG_HOME/Claude`, Windows `%APPDATA%\Claude`
 * — except a Microsoft Store install, which reads only its virtualized copy under
 * `%LOCALAPPDATA%\Packages\Claude_<publisher>\LocalCache\Roaming\Claude`.
 */
async function locate(os: OsFacts, listDir: ListDir): Promise<ConfigLocation> {
  if (os.platform === 'darwin') {
    const dir = posix.join(os.home, 'Library', 'Application Support', 'Claude');
    return { files: [posix.join(dir, FILE)], installDirs: [dir] };
  }
  if (os.platform === 'win32') {
    const packages = win32.join(localAppData(os), 'Packages');
    const store = (await listDir(packages)).filter((n) => /^Claude_/i.test(n)).sort();
    if (store.length > 0) {
      const pkg = win32.join(packages, store[0]);
      return { files: [win32.join(pkg, 'LocalCache', 'Roaming', 'Claude', FILE)], installDirs: [pkg] };
    }
    const dir = win32.join(appData(os), 'Claude');
    return { files: [win32.join(dir, FILE)], installDirs: [dir] };
  }
  const dir = posix.join(xdgConfig(os), 'Claude');
  return { files: [posix.join(dir, FILE)], installDirs: [dir] };
}

/** Claude Desktop: its file takes stdio servers only, so Spillway's entry runs the bridge. */
export const claudeDesktop: ClientDefinition = {
  id: 'claude-desktop',
  displayName: 'Claude Desktop',
  format: 'json',
  commentsAllowed: false,
  kinds: ['stdio'],
  serversPath: ['mcpServers'],
  locate,
  toNative(entry) {
    if (entry.kind !== 'stdio') throw new UnsupportedEntryError('Claude Desktop', entry.kind);
    return stdioNative(entry);
  },
  fromNative: (name, value, file) => normalizeServer(name, value, file),
  ownedKeys: ['type', 'command', 'args', 'env', 'url', 'headers'],
  restartRequired: true,
  restartHint:
    'Quit Claude Desktop completely (from the menu bar or tray, not just its window) and open it again: it reads its settings only when it starts.',
};

/**
 * At hub start: plain env and header values left in config.json (written before the secret store, or
 * typed into the file by hand) move into the store, and the file is rewritten with references. A copy of
 * it is kept first (`config.json.<time>.bak`, beside it) until the rewritten file is in place, then
 * removed: it holds the very values the move takes out of plain text. A failed rewrite leaves it.
 */
import { copyFile, rm } from 'node:fs/promises';
import type { ConfigFile } from '../files/config-file.js';
import { moveConfigSecrets } from './server-secret-refs.js';
import type { SecretStore } from './secret-store.js';

/** Moves the loaded config's plain values into the store; the ids of the servers moved (none: nothing written). */
export async function migrateConfigSecrets(configFile: ConfigFile, store: SecretStore, now: Date = new Date()): Promise<string[]> {
  const moved = await moveConfigSecrets(store, configFile.current);
  if (!moved) return [];
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const backup = `${configFile.path}.${stamp}.bak`;
  await copyFile(configFile.path, backup).catch((err: NodeJS.ErrnoException) => {
    // Defaults with plain values cannot happen, but a file removed meanwhile has nothing to back up.
    if (err.code !== 'ENOENT') throw err;
  });
  await configFile.save(moved.config);
  await rm(backup, { force: true });
  return moved.servers;
}

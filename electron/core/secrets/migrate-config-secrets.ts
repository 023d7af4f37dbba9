/**
 * At hub start: plain env and header values left in config.json (written before the secret store, or
 * typed into the file by hand) move into the store, and the file is rewritten with references, a copy of
 * it kept first (`config.json.<time>.bak`, beside it).
 */
import { copyFile } from 'node:fs/promises';
import type { ConfigFile } from '../files/config-file.js';
import { moveConfigSecrets } from './server-secret-refs.js';
import type { SecretStore } from './secret-store.js';

/** Moves the loaded config's plain values into the store; the ids of the servers moved (none: nothing written). */
export async function migrateConfigSecrets(configFile: ConfigFile, store: SecretStore, now: Date = new Date()): Promise<string[]> {
  const moved = await moveConfigSecrets(store, configFile.current);
  if (!moved) return [];
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  await copyFile(configFile.path, `${configFile.path}.${stamp}.bak`).catch((err: NodeJS.ErrnoException) => {
    // Defaults with plain values cannot happen, but a file removed meanwhile has nothing to back up.
    if (err.code !== 'ENOENT') throw err;
  });
  await configFile.save(moved.config);
  return moved.servers;
}

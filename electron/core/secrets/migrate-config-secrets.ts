/**
 * At hub start: plain env and header values left in config.json (written before the secret store, or
 * typed into the file by hand), and a plain compression API key, move into the store, and the file is
 * rewritten with references. A copy of it is kept first (`config.json.<time>.bak`, beside it) until the
 * rewritten file is in place, then removed: it holds the very values the move takes out of plain text.
 * A failed rewrite leaves it.
 */
import { copyFile, rm } from 'node:fs/promises';
import { SECRET_REF } from '../../../shared/config.js';
import type { ConfigFile } from '../files/config-file.js';
import { moveConfigSecrets } from './server-secret-refs.js';
import type { SecretStore } from './secret-store.js';
import type { SettingsSecrets } from './settings-secrets.js';

/** What moved: the ids of the servers, and whether the compression API key did (nothing: nothing written). */
export interface MovedSecrets {
  servers: string[];
  apiKey: boolean;
}

/** Moves the loaded config's plain values into the store. */
export async function migrateConfigSecrets(
  configFile: ConfigFile,
  store: SecretStore,
  settingsSecrets: SettingsSecrets,
  now: Date = new Date(),
): Promise<MovedSecrets> {
  const servers = await moveConfigSecrets(store, configFile.current);
  let next = servers?.config ?? configFile.current;
  const apiKey = next.settings.compression.apiKey;
  const movedKey = apiKey !== undefined && apiKey !== SECRET_REF;
  if (movedKey) next = { ...next, settings: await settingsSecrets.keep(next.settings, next.settings) };
  const moved = { servers: servers?.servers ?? [], apiKey: movedKey };
  if (!servers && !movedKey) return moved;
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const backup = `${configFile.path}.${stamp}.bak`;
  await copyFile(configFile.path, backup).catch((err: NodeJS.ErrnoException) => {
    // Defaults with plain values cannot happen, but a file removed meanwhile has nothing to back up.
    if (err.code !== 'ENOENT') throw err;
  });
  await configFile.save(next);
  await rm(backup, { force: true });
  return moved;
}

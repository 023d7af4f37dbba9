/**
 * At hub start: plain env and header values left in config.json (written before the secret store, or
 * typed into the file by hand), and a plain compression API key, move into the store, and the file is
 * rewritten with references. No plain copy of it is made: the rewrite is atomic, so a failed one leaves
 * the file as it was, and a copy would hold the very values the move takes out of plain text (a crash
 * before its removal would leave them on disk). The backup of an `mcpServers` file has them masked
 * (config-file.ts).
 */
import { SECRET_REF } from '../../../shared/config.js';
import type { ConfigFile } from '../files/config-file.js';
import { KeychainRefusal } from './keychain-store.js';
import { moveConfigSecrets } from './server-secret-refs.js';
import type { SecretStore } from './secret-store.js';
import type { SettingsSecrets } from './settings-secrets.js';

/**
 * What moved: the ids of the servers, and whether the compression API key did (nothing: nothing written).
 * `refused` is the keychain's message when it refused the values (locked, or not reachable at this start):
 * config.json is left as it was, the servers start with its plain values, and a later start moves them.
 */
export interface MovedSecrets {
  servers: string[];
  apiKey: boolean;
  refused?: string;
}

/** Moves the loaded config's plain values into the store. */
export async function migrateConfigSecrets(configFile: ConfigFile, store: SecretStore, settingsSecrets: SettingsSecrets): Promise<MovedSecrets> {
  try {
    return await moveInto(configFile, store, settingsSecrets);
  } catch (err) {
    // Values already stored by then are stored again at that later start; config.json still holds them.
    if (err instanceof KeychainRefusal) return { servers: [], apiKey: false, refused: err.message };
    throw err;
  }
}

async function moveInto(configFile: ConfigFile, store: SecretStore, settingsSecrets: SettingsSecrets): Promise<MovedSecrets> {
  const servers = await moveConfigSecrets(store, configFile.current);
  let next = servers?.config ?? configFile.current;
  const apiKey = next.settings.compression.apiKey;
  const movedKey = apiKey !== undefined && apiKey !== SECRET_REF;
  if (movedKey) next = { ...next, settings: await settingsSecrets.keep(next.settings, next.settings) };
  const moved = { servers: servers?.servers ?? [], apiKey: movedKey };
  if (!servers && !movedKey) return moved;
  await configFile.save(next);
  return moved;
}

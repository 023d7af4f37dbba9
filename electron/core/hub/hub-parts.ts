/**
 * The parts a hub is built on, opened from its data folder in order: the config, the secret store (plain
 * values moved into it before anything reads them), the event log that masks every secret, the ledger,
 * the spill feature, tool pins and the last run's catalog.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { KeptCatalog } from '../catalog/kept-catalog.js';
import type { AppPaths } from '../files/app-paths.js';
import { ConfigFile } from '../files/config-file.js';
import { keptCatalogPath } from '../files/kept-catalog-file.js';
import { Ledger, localOffsetMinutes } from '../ledger/ledger.js';
import { EventLog } from '../log/event-log.js';
import { SecretValues, configSecretValues } from '../log/secret-values.js';
import { oauthSecretsWithin } from '../oauth/upstream-oauth-provider.js';
import { hiddenParamTexts, toolEncoding } from '../policy/policy-runtime.js';
import { ToolPins } from '../policy/tool-pins.js';
import { maskConfigSecrets } from '../secrets/mask-config-secrets.js';
import { migrateConfigSecrets } from '../secrets/migrate-config-secrets.js';
import { SettingsSecrets } from '../secrets/settings-secrets.js';
import { openSecretStore } from '../secrets/open-secret-store.js';
import { secretPartsWithin } from '../secrets/secret-parts.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { createSpillFeature, type SpillFeature } from '../spill/spill-feature.js';

/** The tool pins file: first-seen definitions and approvals, kept across restarts. */
export const TOOL_PINS_FILE = 'tool-pins.json';

export interface HubParts {
  events: EventLog;
  ledger: Ledger;
  spill: SpillFeature;
  pins: ToolPins;
  kept: KeptCatalog;
  secretStore: SecretStore;
  settingsSecrets: SettingsSecrets;
}

/**
 * Opens the config file and every part of a hub on `paths` (the folders are made when missing). Not
 * harmless while another hub runs there (the spill store's start-up cleanup would remove its newest
 * results): the app claims the data folder first (app/hub-record.ts, claimDataFolder).
 */
export async function openHubParts(paths: AppPaths): Promise<{ configFile: ConfigFile; parts: HubParts }> {
  const configFile = new ConfigFile(paths.configFile, { maskSecrets: maskConfigSecrets });
  const config = await configFile.load();
  await mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
  // Every configured env and header value is masked wherever it appears in events (issue 13, item 12).
  const secrets = new SecretValues();
  secrets.track('config', () => configFile.current, configSecretValues);
  // And the values of hidden parameters: often a token, which an upstream's error may quote back.
  secrets.track('hidden parameters', () => configFile.current, hiddenParamTexts);
  // Plain values left in config.json move into the store before anything reads them (issue 15).
  // What the store has to say (secrets moved into the keychain, a keychain that did not answer) waits for the event log.
  const storeNotes: string[] = [];
  const secretStore = await openSecretStore({ dataDir: paths.dataDir, log: (message) => storeNotes.push(message) });
  const settingsSecrets = new SettingsSecrets(secretStore);
  const moved = await migrateConfigSecrets(configFile, secretStore, settingsSecrets);
  await settingsSecrets.load(configFile.current.settings);
  // The parts of a stored value are masked on their own too: the credential of `Bearer xyz`, the value of
  // `--token=xyz`, the password in an address (secret-parts.ts), and the tokens and client secret inside an
  // OAuth entry (stored as JSON).
  secrets.track(
    'secret store',
    () => secretStore.known(),
    (values) => values.flatMap((value) => [value, ...secretPartsWithin(value), ...oauthSecretsWithin(value)]),
  );
  const events = new EventLog({ dir: paths.logDir, retentionDays: config.settings.logRetentionDays, secrets });
  // Keys config.json holds that this Spillway does not know (kept in the file): each said once, at start.
  for (const message of configFile.warnings) events.emit({ type: 'log', level: 'warn', message });
  const log = (message: string, error?: unknown) =>
    events.emit({ type: 'log', level: 'warn', message: error ? `${message}: ${(error as Error).message ?? error}` : message });
  const ledger = new Ledger({
    dir: paths.ledgerDir,
    dayOffsetMinutes: localOffsetMinutes,
    onError: (err) => log('ledger read or write failed', err),
  });
  await ledger.open();
  const spill = await createSpillFeature({
    spillDir: paths.spillDir,
    settings: () => configFile.current.settings,
    log,
    // read_result shows a spilled result in the encoding of the tool that made it, from any run.
    encodingFor: (server, tool) => toolEncoding(configFile.current, server, tool),
  });
  const pins = await ToolPins.open({ file: join(paths.dataDir, TOOL_PINS_FILE), log });
  const kept = await KeptCatalog.open(keptCatalogPath(paths.dataDir), log);
  if (moved.servers.length > 0) {
    events.emit({
      type: 'log',
      level: 'info',
      message: `Moved the env and header values of ${moved.servers.join(', ')} into the ${secretStore.kind}`,
    });
  }
  if (moved.apiKey) events.emit({ type: 'log', level: 'info', message: `Moved the compression API key into the ${secretStore.kind}` });
  if (moved.refused)
    events.emit({ type: 'log', level: 'warn', message: `Plain values in config.json stay there until the keychain answers: ${moved.refused}` });
  for (const message of storeNotes) events.emit({ type: 'log', level: message.startsWith('Moved ') ? 'info' : 'warn', message });
  return { configFile, parts: { events, ledger, spill, pins, kept, secretStore, settingsSecrets } };
}

/**
 * The control side of one hub: its operations, its status reports and the parts the contract's handlers
 * read, each taken from the hub once here so that nothing in control/ holds the whole hub.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Config, Settings } from '../../../shared/config.js';
import type { Catalog } from '../catalog/catalog.js';
import type { Hub } from '../hub.js';
import type { HubSignIns } from '../hub/hub-sign-ins.js';
import type { Ledger } from '../ledger/ledger.js';
import type { EventLog } from '../log/event-log.js';
import type { PolicyRuntime } from '../policy/policy-runtime.js';
import { readResult } from '../spill/read-result.js';
import type { SpillStore } from '../spill/spill-store.js';
import type { Upstream } from '../upstream/upstream.js';
import { HubControl } from './hub-control.js';
import { HubStatus } from './hub-status.js';
import { ServerRevisions } from './server-revisions.js';

export interface ControlParts {
  control: HubControl;
  status: HubStatus;
  config(): Config;
  settings(): Settings;
  upstreams: ReadonlyMap<string, Upstream>;
  catalog: Catalog;
  policy: PolicyRuntime;
  events: EventLog;
  spill: SpillStore;
  /** One op of the model's read tool (`spillway__read_result`), with its arguments and limits. */
  readSpill(args: Record<string, unknown>): Promise<CallToolResult>;
  ledger: Ledger;
  /** Upstream OAuth sign-in (issue 15). */
  signIns: HubSignIns;
}

/** Builds the control side of a hub. */
export function controlParts(hub: Hub): ControlParts {
  const config = () => hub.config;
  const revisions = new ServerRevisions();
  const control = new HubControl({
    config,
    saveConfig: (next, what, restored) => hub.saveConfig(next, what, restored),
    unknownKeys: () => hub.unknownConfigKeys,
    pool: hub.pool,
    policy: hub.policy,
    refreshCatalog: () => hub.refreshCatalog(),
    emit: (event) => hub.emit(event),
    secrets: hub.events.secrets,
    secretStore: hub.secretStore,
    settingsSecrets: hub.settingsSecrets,
    forgetSignIn: (id) => hub.signIns.oauth.forget(id),
    spill: hub.spill.store,
    events: hub.events,
    revisions,
    ownHub: () => ({ url: hub.url, dataDir: hub.options.paths.dataDir, platform: hub.options.platform }),
  });
  const status = new HubStatus({
    config,
    upstreams: hub.pool,
    sessions: () => hub.sessions.values(),
    catalog: hub.catalog,
    countTokens: (text) => hub.spill.counter.count(text),
    facts: () => ({
      version: hub.options.version,
      endpoint: hub.url,
      dataDir: hub.options.paths.dataDir,
      configFile: hub.options.paths.configFile,
      secrets: { store: hub.secretStore.kind },
    }),
    secrets: hub.events.secrets,
    auth: (id) => hub.signIns.authInfo(id),
    revisions,
  });
  return {
    control,
    status,
    config,
    settings: () => hub.settings,
    upstreams: hub.pool,
    catalog: hub.catalog,
    policy: hub.policy,
    events: hub.events,
    spill: hub.spill.store,
    // The window's viewer shows the original as the upstream sent it: JSON's own lines, never a TOON view
    // of them (whatever a tool's encoding), so its pages, search and saved file are the same text.
    readSpill: (args) => readResult(hub.spill.store, hub.spill.counter, args, { encodingFor: () => 'json' }),
    ledger: hub.ledger,
    signIns: hub.signIns,
  };
}

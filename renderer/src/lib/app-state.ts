/** The renderer's composition root: every state object, built from one backend. */
import type { Backend } from './api.js';
import { ActivityLog } from './activity.svelte.js';
import { BrowseState } from './browse.svelte.js';
import { ClientsState } from './clients.svelte.js';
import { CompressionState } from './compression.svelte.js';
import { ConnectionState } from './connection.svelte.js';
import { OnboardingState, type FlagStorage } from './onboarding.svelte.js';
import { PoliciesState } from './policies.svelte.js';
import { SavingsState } from './savings.svelte.js';
import { ServersState } from './servers.svelte.js';
import { SettingsState } from './settings.svelte.js';
import { SpillPreviewState } from './spill-preview.svelte.js';
import { SpillStorageState } from './spill-storage.svelte.js';
import { StatusState } from './status.svelte.js';
import { ToolsState } from './tools.svelte.js';

export interface AppState {
  connection: ConnectionState;
  status: StatusState;
  servers: ServersState;
  browse: BrowseState;
  tools: ToolsState;
  policies: PoliciesState;
  clients: ClientsState;
  activity: ActivityLog;
  spillPreview: SpillPreviewState;
  savings: SavingsState;
  settings: SettingsState;
  storage: SpillStorageState;
  onboarding: OnboardingState;
  compression: CompressionState;
  /** Loads everything and follows hub events; returns the stop. */
  start(): () => void;
}

/** `flags` keeps first-run setup's "don't show again" (the browser's localStorage in the app). */
export function createAppState(backend: Backend, flags?: FlagStorage): AppState {
  const state = {
    connection: new ConnectionState(backend),
    status: new StatusState(backend),
    servers: new ServersState(backend),
    browse: new BrowseState(backend),
    tools: new ToolsState(backend),
    policies: new PoliciesState(backend),
    clients: new ClientsState(backend),
    activity: new ActivityLog(backend),
    spillPreview: new SpillPreviewState(backend),
    savings: new SavingsState(backend),
    settings: new SettingsState(backend),
    storage: new SpillStorageState(backend),
    onboarding: new OnboardingState(backend, flags),
    compression: new CompressionState(backend),
  };
  return {
    ...state,
    start() {
      // Everything starts at once so the log collects events while another view is open.
      const stops = [
        state.status.start(),
        state.servers.start(),
        state.policies.start(),
        state.clients.start(),
        state.activity.start(),
        state.savings.start(),
        state.settings.start(),
        state.storage.start(),
        state.connection.start(() => reloadAll(state)),
      ];
      void state.onboarding.start();
      return () => {
        for (const stop of stops) stop();
      };
    },
  };
}

/** After a gap in the connection every view reloads what it shows: events missed while away are gone. */
function reloadAll(state: Omit<AppState, 'start'>): void {
  void state.status.refresh();
  // Before the server list is read again: the Tools view then reads every server's tools too.
  state.tools.forget();
  void state.servers.refresh();
  void state.policies.refresh();
  void state.clients.refreshSessions();
  if (state.clients.available) void state.clients.loadClients();
  void state.savings.load();
  void state.settings.load();
  void state.storage.refresh();
}

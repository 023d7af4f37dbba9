/** The renderer's composition root: every state object, built from one backend. */
import type { Backend } from './api.js';
import { ActivityLog } from './activity.svelte.js';
import { ClientsState } from './clients.svelte.js';
import { SavingsState } from './savings.svelte.js';
import { ServersState } from './servers.svelte.js';
import { SettingsState } from './settings.svelte.js';
import { StatusState } from './status.svelte.js';
import { ToolsState } from './tools.svelte.js';

export interface AppState {
  status: StatusState;
  servers: ServersState;
  tools: ToolsState;
  clients: ClientsState;
  activity: ActivityLog;
  savings: SavingsState;
  settings: SettingsState;
  /** Loads everything and follows hub events; returns the stop. */
  start(): () => void;
}

export function createAppState(backend: Backend): AppState {
  const state = {
    status: new StatusState(backend),
    servers: new ServersState(backend),
    tools: new ToolsState(backend),
    clients: new ClientsState(backend),
    activity: new ActivityLog(backend),
    savings: new SavingsState(backend),
    settings: new SettingsState(backend),
  };
  return {
    ...state,
    start() {
      // Everything starts at once so the log collects events while another view is open.
      const stops = [
        state.status.start(),
        state.servers.start(),
        state.clients.start(),
        state.activity.start(),
        state.savings.start(),
        state.settings.start(),
      ];
      return () => {
        for (const stop of stops) stop();
      };
    },
  };
}

/** MCP clients: detected clients when the contract has `clients.*`; always the live sessions. */
import { hasArea, type ApiFailure, type Backend } from './api.js';
import type { SessionInfo } from '../../../shared/api.js';
import { callProvisional, ClientListSchema, type ClientEntry } from './provisional.js';
import { coalesced } from './refresh-loop.js';

export class ClientsState {
  #clients = $state<ClientEntry[]>([]);
  #clientsError = $state<ApiFailure | undefined>();
  #sessions = $state<SessionInfo[]>([]);
  #sessionsError = $state<ApiFailure | undefined>();
  readonly available = hasArea('clients');
  readonly #backend: Backend;

  readonly refreshSessions = coalesced(async () => {
    const result = await this.#backend.call('sessions.list', {});
    if (result.ok) {
      this.#sessions = result.value;
      this.#sessionsError = undefined;
    } else {
      this.#sessionsError = result;
    }
  });

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get clients(): ClientEntry[] {
    return this.#clients;
  }
  get clientsError(): ApiFailure | undefined {
    return this.#clientsError;
  }
  get sessions(): SessionInfo[] {
    return this.#sessions;
  }
  get sessionsError(): ApiFailure | undefined {
    return this.#sessionsError;
  }

  async loadClients(): Promise<void> {
    if (!this.available) return;
    const result = await callProvisional(this.#backend, 'clients.list', ClientListSchema);
    if (result.ok) {
      this.#clients = result.value;
      this.#clientsError = undefined;
    } else {
      this.#clientsError = result;
    }
  }

  start(): () => void {
    const stop = this.#backend.subscribe((e) => {
      if (e.type === 'session.opened' || e.type === 'session.closed') void this.refreshSessions();
    });
    void this.refreshSessions();
    void this.loadClients();
    return stop;
  }
}

/** The configured upstream servers, live: status and stderr follow hub events; actions report per server. */
import type { ApiFailure, ApiResult, Backend, Res } from './api.js';
import type { UpstreamInfo } from '../../../shared/api.js';
import type { ServerConfig } from '../../../shared/config.js';
import type { HubEvent } from '../../../shared/events.js';
import { coalesced } from './refresh-loop.js';
import type { ServerDraft } from './server-draft.svelte.js';

/** Lines of stderr kept per server in the view (the hub keeps its own bounded tail too). */
const STDERR_LINES = 50;

export type ServerAction = 'restart' | 'remove' | 'toggle';
export type TestResult = Res<'upstreams.test'>;

export class ServersState {
  #list = $state<UpstreamInfo[]>([]);
  #loaded = $state(false);
  #loadError = $state<ApiFailure | undefined>();
  #actionErrors = $state<Record<string, ApiFailure | undefined>>({});
  #busy = $state<Record<string, ServerAction | undefined>>({});
  #ids = $derived.by(() => this.#list.map((u) => u.id));
  readonly #backend: Backend;

  readonly refresh = coalesced(async () => {
    const result = await this.#backend.call('upstreams.list', {});
    this.#loaded = true;
    if (result.ok) {
      this.#list = result.value;
      this.#loadError = undefined;
    } else {
      this.#loadError = result;
    }
  });

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get list(): UpstreamInfo[] {
    return this.#list;
  }
  get ids(): string[] {
    return this.#ids;
  }
  get loaded(): boolean {
    return this.#loaded;
  }
  get loadError(): ApiFailure | undefined {
    return this.#loadError;
  }
  errorFor(id: string): ApiFailure | undefined {
    return this.#actionErrors[id];
  }
  busyWith(id: string): ServerAction | undefined {
    return this.#busy[id];
  }

  /** Loads the list and follows events; returns the stop function. */
  start(): () => void {
    const stop = this.#backend.subscribe((e) => this.#apply(e));
    void this.refresh();
    return stop;
  }

  #apply(e: HubEvent): void {
    if (e.type === 'upstream.status') {
      const known = this.#list.some((u) => u.id === e.server);
      if (!known) {
        void this.refresh();
        return;
      }
      this.#list = this.#list.map((u) =>
        u.id === e.server ? { ...u, status: e.status, error: e.error ?? (e.status === 'error' ? u.error : undefined), tools: e.tools ?? u.tools } : u,
      );
    } else if (e.type === 'upstream.stderr') {
      this.#list = this.#list.map((u) => (u.id === e.server ? { ...u, stderrTail: [...u.stderrTail, e.line].slice(-STDERR_LINES) } : u));
    } else if (e.type === 'config.changed' || e.type === 'catalog.changed') {
      void this.refresh();
    }
  }

  async #act<T>(id: string, action: ServerAction, run: () => Promise<ApiResult<T>>): Promise<boolean> {
    this.#busy = { ...this.#busy, [id]: action };
    const result = await run();
    this.#busy = { ...this.#busy, [id]: undefined };
    this.#actionErrors = { ...this.#actionErrors, [id]: result.ok ? undefined : result };
    if (result.ok) await this.refresh();
    return result.ok;
  }

  restart(id: string): Promise<boolean> {
    return this.#act(id, 'restart', () => this.#backend.call('upstreams.restart', { id }));
  }

  remove(id: string): Promise<boolean> {
    return this.#act(id, 'remove', () => this.#backend.call('upstreams.remove', { id }));
  }

  setEnabled(id: string, enabled: boolean): Promise<boolean> {
    const server = this.#list.find((u) => u.id === id);
    if (!server) return Promise.resolve(false);
    const config: ServerConfig = { ...server.config, enabled };
    return this.#act(id, 'toggle', () => this.#backend.call('upstreams.update', { id, config }));
  }

  /** Connects to the draft's server without saving it and lists its tools. */
  async test(draft: ServerDraft): Promise<ApiResult<TestResult> | undefined> {
    const config = draft.validateConfig();
    if (!config) return undefined;
    // Editing: the hub tests with the stored values where the form still shows them masked.
    const result = await this.#backend.call('upstreams.test', { config, ...(draft.editingId ? { id: draft.editingId } : {}) });
    if (!result.ok && result.field) draft.setProblem({ field: result.field, message: result.message });
    return result;
  }

  /** Adds or updates the draft's server; on failure the problem is set on the draft. Returns the saved id. */
  async save(draft: ServerDraft): Promise<string | undefined> {
    const checked = draft.validate(this.#ids);
    if (!checked) return undefined;
    const result = draft.editingId
      ? await this.#backend.call('upstreams.update', { id: checked.id, config: checked.config })
      : await this.#backend.call('upstreams.add', {
          id: checked.id,
          ...(checked.label ? { name: checked.label } : {}),
          config: checked.config,
        });
    if (!result.ok) {
      draft.setProblem({ field: result.field ?? 'form', message: result.message });
      return undefined;
    }
    await this.refresh();
    return result.value.id;
  }
}

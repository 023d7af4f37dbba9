/** Each server's tools with their schema tokens, loaded on demand per server. */
import type { ApiFailure, Backend } from './api.js';
import type { ToolSummary, UpstreamInfo } from '../../../shared/api.js';

export interface ServerTools {
  loading: boolean;
  tools: ToolSummary[];
  error?: ApiFailure;
}

export class ToolsState {
  #byServer = $state<Record<string, ServerTools>>({});
  /**
   * Each server's tool count at its last successful load; a server is loaded again when its count changes.
   * Only a success is recorded, so a load that failed (the hub was down) is tried again. Not reactive: it is
   * bookkeeping of `follow`, which runs inside the view's effect.
   */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping: reactive, its writes would re-run the view's effect
  readonly #loadedAt = new Map<string, number>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- as above
  readonly #inFlight = new Set<string>();
  readonly #backend: Backend;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  of(id: string): ServerTools | undefined {
    return this.#byServer[id];
  }

  /** Sum of schema tokens a server's tools cost in tools/list. */
  schemaTokens(id: string): number {
    return (this.#byServer[id]?.tools ?? []).reduce((sum, t) => sum + (t.schemaTokens ?? 0), 0);
  }

  /** Loads the tools of each ready server not loaded yet, whose last load failed, or whose tool count changed. */
  follow(servers: readonly UpstreamInfo[]): void {
    for (const s of servers) {
      if (s.status !== 'ready' || this.#inFlight.has(s.id) || this.#loadedAt.get(s.id) === s.tools) continue;
      void this.load(s.id, s.tools);
    }
  }

  /** Forgets what was loaded, so `follow` reads every server again (the view opened; the hub came back). */
  forget(): void {
    this.#loadedAt.clear();
  }

  /** Loads one server's tools; `count` is its tool count as listed, recorded once the load succeeds. */
  async load(id: string, count?: number): Promise<boolean> {
    const before = this.#byServer[id];
    this.#inFlight.add(id);
    this.#byServer = { ...this.#byServer, [id]: { loading: true, tools: before?.tools ?? [] } };
    const result = await this.#backend.call('upstreams.tools', { id });
    this.#inFlight.delete(id);
    if (result.ok && count !== undefined) this.#loadedAt.set(id, count);
    this.#byServer = {
      ...this.#byServer,
      [id]: result.ok ? { loading: false, tools: result.value } : { loading: false, tools: before?.tools ?? [], error: result },
    };
    return result.ok;
  }
}

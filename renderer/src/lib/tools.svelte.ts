/** Each server's tools with their schema tokens, loaded on demand per server. */
import type { ApiFailure, Backend } from './api.js';
import type { ToolSummary } from '../../../shared/api.js';

export interface ServerTools {
  loading: boolean;
  tools: ToolSummary[];
  error?: ApiFailure;
}

export class ToolsState {
  #byServer = $state<Record<string, ServerTools>>({});
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

  async load(id: string): Promise<void> {
    const before = this.#byServer[id];
    this.#byServer = { ...this.#byServer, [id]: { loading: true, tools: before?.tools ?? [] } };
    const result = await this.#backend.call('upstreams.tools', { id });
    this.#byServer = {
      ...this.#byServer,
      [id]: result.ok ? { loading: false, tools: result.value } : { loading: false, tools: before?.tools ?? [], error: result },
    };
  }
}

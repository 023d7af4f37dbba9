import type { Peek } from './messages.js';

export interface ToolsWaitOptions {
  /** The tool names the waiting calls name. */
  needed: ReadonlySet<string>;
  /** How many calls wait (for the log line). */
  calls: number;
  /** One tools/list request to the new hub (its answer kept from the client). */
  list: (cursor: string | undefined) => Promise<Peek>;
  /** The bound: after this long the calls go anyway (and may meet "Unknown tool"). */
  timeoutMs: number;
  log: (line: string) => void;
  /** Runs once: the tools are listed, the bound passed, or the hub cannot tell. */
  done: () => void;
}

/**
 * After a hub restart, the calls a client sent during the outage wait until the new hub lists the tools
 * they name: its upstreams come up in the background, and a call sent before them gets "Unknown tool"
 * (issue 13, item 7). Lists once, then again on each `notifications/tools/list_changed`, within a bound.
 */
export class ToolsWait {
  readonly #o: ToolsWaitOptions;
  #timer: NodeJS.Timeout | undefined;
  #finished = false;
  #listing = false;
  /** A list_changed arrived while a listing was under way: that listing may predate it. */
  #stale = false;
  #told = false;

  constructor(options: ToolsWaitOptions) {
    this.#o = options;
  }

  start(): void {
    this.#timer = setTimeout(() => {
      this.#o.log(`spillway bridge: the hub did not list every tool within ${Math.round(this.#o.timeoutMs / 1000)} s; sending the waiting calls`);
      this.#finish();
    }, this.#o.timeoutMs);
    void this.#check();
  }

  /** The hub said its tool list changed. */
  changed(): void {
    if (this.#listing) this.#stale = true;
    else void this.#check();
  }

  /** The hub went away: nothing more is sent through this wait. */
  cancel(): void {
    this.#finished = true;
    clearTimeout(this.#timer);
  }

  async #check(): Promise<void> {
    if (this.#finished) return;
    this.#listing = true;
    this.#stale = false;
    const listed = await this.#listAll();
    this.#listing = false;
    if (this.#finished) return;
    // An error answer means the hub cannot tell: waiting longer would not help.
    if (!listed) return this.#finish();
    const missing = [...this.#o.needed].filter((name) => !listed.has(name));
    if (missing.length === 0) return this.#finish();
    if (this.#stale) return void this.#check();
    if (!this.#told) {
      this.#told = true;
      const calls = this.#o.calls === 1 ? '1 waiting call' : `${this.#o.calls} waiting calls`;
      this.#o.log(`spillway bridge: waiting for the hub to list ${missing.join(', ')} before sending ${calls}`);
    }
  }

  async #listAll(): Promise<Set<string> | undefined> {
    const names = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const answer = await this.#o.list(cursor);
      const tools: unknown = answer.result?.tools;
      if (!Array.isArray(tools)) return undefined;
      for (const tool of tools as ({ name?: unknown } | null)[]) if (typeof tool?.name === 'string') names.add(tool.name);
      const next = answer.result?.nextCursor;
      if (typeof next !== 'string' || next === cursor) break;
      cursor = next;
    }
    return names;
  }

  #finish(): void {
    if (this.#finished) return;
    this.cancel();
    this.#o.done();
  }
}

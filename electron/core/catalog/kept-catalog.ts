/**
 * The kept catalog: per upstream, its tools, resources, resource templates and prompts as it last listed
 * them, carried over from the last run (files/kept-catalog-file.ts keeps it on disk). A restarted hub
 * serves them at once, so a client that lists once sees every tool even while its upstream is still
 * starting (issue 13, item 3). Until an upstream answers in this run (ready or failed), its kept lists
 * "stand in" for it; the catalog marks the entries that come from them. Issue 18 (lazy start) builds on
 * this: serving the kept lists of an upstream it has not started, or stopped when idle.
 */
import { createHash } from 'node:crypto';
import type { ServerConfig } from '../../../shared/config.js';
import type { AtomicFile } from '../files/atomic-file.js';
import { keptCatalogFile, readKeptCatalog, type KeptUpstream } from '../files/kept-catalog-file.js';

export type { KeptUpstream } from '../files/kept-catalog-file.js';

/** An upstream's four lists. */
export type UpstreamLists = Pick<KeptUpstream, 'tools' | 'resources' | 'resourceTemplates' | 'prompts'>;

/**
 * A digest of what decides which server a config reaches, and so what it lists: how it starts or where
 * it is. Prefix, label, timeout and enabled are left out (they change nothing an upstream lists); env
 * and header values go in only as part of the digest.
 */
export function serverConfigKey(config: ServerConfig): string {
  const reach =
    config.type === 'stdio'
      ? { type: config.type, command: config.command, args: config.args, env: sorted(config.env), cwd: config.cwd ?? null }
      : { type: config.type, url: config.url, headers: sorted(config.headers) };
  return createHash('sha256').update(JSON.stringify(reach)).digest('base64url');
}

function sorted(map: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Compares lists by what they say (listedAt aside). */
function fingerprint(config: string, lists: UpstreamLists): string {
  return JSON.stringify([config, lists.tools, lists.resources, lists.resourceTemplates, lists.prompts]);
}

type Log = (message: string, error?: unknown) => void;

export class KeptCatalog {
  readonly #kept: Map<string, KeptUpstream>;
  readonly #prints = new Map<string, string>();
  /** Upstreams whose kept lists serve until they answer in this run. */
  readonly #standingIn = new Set<string>();
  #file: AtomicFile | undefined;
  #log: Log = () => {};

  /** A kept catalog in memory only (tests); `open` gives one that is kept on disk. */
  constructor(kept: Iterable<[string, KeptUpstream]> = []) {
    this.#kept = new Map(kept);
  }

  /** Reads the kept catalog at `path` (what cannot be used is logged and left out); changes are saved there. */
  static async open(path: string, log: Log): Promise<KeptCatalog> {
    const read = await readKeptCatalog(path);
    for (const problem of read.problems) log(problem);
    const kept = new KeptCatalog(read.upstreams);
    kept.#file = keptCatalogFile(path, () => kept.entries());
    kept.#log = log;
    return kept;
  }

  /** Resolves once the last save asked for has finished (a failed one was logged). */
  flush(): Promise<void> {
    return this.#file?.settled() ?? Promise.resolve();
  }

  #save(): void {
    this.#file?.save().catch((err: unknown) => this.#log('saving the kept catalog failed', err));
  }

  /**
   * At start: every enabled server with lists kept under its current config stands in until it answers.
   * Returns their ids (the upstreams that were ready last time, which a first tools/list waits for).
   */
  standIn(servers: Readonly<Record<string, ServerConfig>>): string[] {
    this.#standingIn.clear();
    for (const [id, config] of Object.entries(servers)) {
      if (config.enabled && this.has(id, config)) this.#standingIn.add(id);
    }
    return [...this.#standingIn];
  }

  /** The kept lists serving for this upstream now (it has not answered yet in this run), else undefined. */
  standingIn(id: string): KeptUpstream | undefined {
    return this.#standingIn.has(id) ? this.#kept.get(id) : undefined;
  }

  /** Whether lists are kept for this server under this config (it may start on first use). */
  has(id: string, config: ServerConfig): boolean {
    return this.#kept.get(id)?.config === serverConfigKey(config);
  }

  /** The upstream is idle again (stopped for want of calls): its kept lists serve again. True when they now do. */
  resume(id: string, config: ServerConfig): boolean {
    if (this.#standingIn.has(id) || !this.has(id, config)) return false;
    this.#standingIn.add(id);
    return true;
  }

  /** The upstream answered in this run (ready, failed, stopped): its kept lists no longer serve. True when they did. */
  settle(id: string): boolean {
    return this.#standingIn.delete(id);
  }

  /** The lists kept for an upstream (whether or not they serve now). */
  get(id: string): KeptUpstream | undefined {
    return this.#kept.get(id);
  }

  /** Keeps what an upstream just listed; true when it differs from what was kept (then the file is saved). */
  record(id: string, config: ServerConfig, lists: UpstreamLists, now = new Date()): boolean {
    const key = serverConfigKey(config);
    const print = fingerprint(key, lists);
    const kept = this.#kept.get(id);
    if (kept && (this.#prints.get(id) ?? fingerprint(kept.config, kept)) === print) {
      this.#prints.set(id, print);
      return false;
    }
    this.#kept.set(id, {
      config: key,
      listedAt: now.toISOString(),
      tools: lists.tools,
      resources: lists.resources,
      resourceTemplates: lists.resourceTemplates,
      prompts: lists.prompts,
    });
    this.#prints.set(id, print);
    this.#save();
    return true;
  }

  /** Forgets servers no longer configured; true when one was dropped (then the file is saved). */
  retain(ids: Iterable<string>): boolean {
    const keep = new Set(ids);
    let dropped = false;
    for (const id of [...this.#kept.keys()]) {
      if (keep.has(id)) continue;
      this.#kept.delete(id);
      this.#prints.delete(id);
      this.#standingIn.delete(id);
      dropped = true;
    }
    if (dropped) this.#save();
    return dropped;
  }

  /** Every kept upstream, for the file. */
  entries(): IterableIterator<[string, KeptUpstream]> {
    return this.#kept.entries();
  }
}

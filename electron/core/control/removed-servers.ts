/**
 * Undo for Remove: a removed server is held for a while — its config with its secret values in place of
 * their references, its sign-in, its policies and the keys of config.json under them that this version
 * does not know — so that Undo adds it back as it was, without typing a key again or signing in again. Held in memory only (never written anywhere), and only for UNDO_MS:
 * after that, or after a restart, the server has to be added again.
 */
import type { ServerConfig } from '../../../shared/config.js';
import type { UnknownKey } from '../../../shared/config-unknown-keys.js';
import type { ServerPolicies } from '../../../shared/policy.js';
import { ConfigChangedError } from '../files/config-file.js';
import { OAUTH_SECRETS } from '../oauth/upstream-oauth-provider.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { resolveServerSecrets } from '../secrets/server-secret-refs.js';
import { ControlError } from './control-error.js';

/** How long a removed server can be put back. */
export const UNDO_MS = 10 * 60_000;

/** The stored sign-in values worth putting back (a PKCE verifier belongs to a sign-in that is over). */
const SIGN_IN_NAMES = [OAUTH_SECRETS.tokens, OAUTH_SECRETS.client];

export interface RemovedServer {
  /** The config with its secret values in place (it is added back through the store again). */
  config: ServerConfig;
  /** Stored sign-in values by name. */
  signIn: Record<string, string>;
  /** Its own policy and its tools' (removed from the config with it). */
  policies: ServerPolicies;
  /**
   * The keys of config.json under its entry and its policies that this version does not know (a newer
   * Spillway's): the config in force leaves them out, so they go back into the file with it.
   */
  unknown?: readonly UnknownKey[];
}

/** Where config.json keeps what belongs to server `id`: its entry, its policy and its tools'. */
function serverPaths(id: string): string[][] {
  return [
    ['servers', id],
    ['policies', 'servers', id],
    ['policies', 'tools', id],
  ];
}

/** Those of `unknown` (the config file's unknown keys) that belong to server `id`. */
export function unknownKeysOf(unknown: readonly UnknownKey[], id: string): UnknownKey[] {
  const paths = serverPaths(id);
  return unknown.filter((key) => paths.some((p) => p.length < key.path.length && p.every((part, i) => key.path[i] === part)));
}

export class RemovedServers {
  readonly #byId = new Map<string, RemovedServer & { expiresAt: number }>();

  constructor(
    private readonly ttlMs = UNDO_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Holds a server about to be removed with its policies, its values read from `store` while they are still
   * there; `unknown`: the config file's unknown keys as they were before the removal (those of `id` are kept).
   */
  async keep(
    id: string,
    cfg: ServerConfig,
    policies: ServerPolicies,
    store: SecretStore | undefined,
    unknown: readonly UnknownKey[] = [],
  ): Promise<void> {
    this.#sweep();
    const config = store ? await resolveServerSecrets(store, id, cfg) : cfg;
    const signIn: Record<string, string> = {};
    if (store && cfg.type !== 'stdio')
      for (const name of SIGN_IN_NAMES) {
        const value = await store.get(id, name);
        if (value !== undefined) signIn[name] = value;
      }
    const own = unknownKeysOf(unknown, id);
    this.#byId.set(id, { config, signIn, policies, ...(own.length > 0 ? { unknown: own } : {}), expiresAt: this.now() + this.ttlMs });
  }

  /** The server removed under `id`, still held (undefined when none is held or it expired). */
  held(id: string): RemovedServer | undefined {
    this.#sweep();
    return removedServer(this.#byId.get(id));
  }

  /** The server removed under `id`, once (undefined when none is held or it expired). */
  take(id: string): RemovedServer | undefined {
    this.#sweep();
    const held = this.#byId.get(id);
    this.#byId.delete(id);
    return removedServer(held);
  }

  #sweep(): void {
    const now = this.now();
    for (const [id, held] of this.#byId) if (held.expiresAt < now) this.#byId.delete(id);
  }
}

/** What is held, without its time. */
function removedServer(held: (RemovedServer & { expiresAt: number }) | undefined): RemovedServer | undefined {
  if (!held) return undefined;
  const { expiresAt: _expiresAt, ...server } = held;
  return server;
}

/**
 * An Undo whose save was refused because config.json was edited by hand. The usual advice (restart, then
 * make the change again) would lose the server here: what Undo puts back is held only while Spillway runs.
 */
export function undoRefusal(id: string, err: unknown): unknown {
  if (!(err instanceof ConfigChangedError)) return err;
  return new ControlError(
    'conflict',
    `"${id}" was not put back: config.json was changed outside Spillway, and saving now would undo that change. ` +
      `Undo only works while Spillway keeps running: after a restart you would have to add "${id}" again and enter its keys again. ` +
      'To keep it: copy your change somewhere, put config.json back as it was, press Undo again, then make your change again and restart Spillway.',
    'id',
  );
}

/**
 * The hub's control operations: add, update, remove, restart and test upstreams, save policies, server
 * fields and settings. Each change is saved to the config file first, then applied to the running hub;
 * changes run one at a time, so two sent at once are both kept.
 */
import { uniqueServerId, SERVER_ID_PATTERN, type Config, type ServerConfig, type Settings, type SettingsPatch } from '../../../shared/config.js';
import type { HubEventInput, UpstreamStatus } from '../../../shared/events.js';
import { ownValue } from '../../../shared/records.js';
import type { UnknownKey } from '../../../shared/config-unknown-keys.js';
import { policiesOf, withServerPolicies, withoutServer, type Policies, type ServerPolicies } from '../../../shared/policy.js';
import type { HubIdentity } from '../clients/entry-owner.js';
import type { EventLog } from '../log/event-log.js';
import type { SecretValues } from '../log/secret-values.js';
import type { PolicyRuntime } from '../policy/policy-runtime.js';
import type { SecretStore } from '../secrets/secret-store.js';
import type { SettingsSecrets } from '../secrets/settings-secrets.js';
import { forgetServerSecrets, forgetUnreferenced, resolveServerSecrets, storeServerSecrets } from '../secrets/server-secret-refs.js';
import type { SpillStore } from '../spill/spill-store.js';
import type { UpstreamPool } from '../upstream/upstream-pool.js';
import { ControlError, storeCall } from './control-error.js';
import { RemovedServers, UNDO_MS, undoRefusal, type RemovedServer } from './removed-servers.js';
import { SecretChanges } from './secret-changes.js';
import { ServerRevisions } from './server-revisions.js';
import { restoreMaskedSecrets } from './server-secrets.js';
import { refuseThisHub, refuseUnsendableHeaders, validServer } from './server-validation.js';
import { saveSettings } from './settings-change.js';
import { testUpstream } from './upstream-test.js';

/** What the control operations use of the hub. */
export interface HubControlDeps {
  /** The config as it is now (every change replaces the object). */
  config(): Config;
  /** Saves the config file (with `restored` unknown keys put back: Undo's), then applies it and announces what changed. */
  saveConfig(next: Config, what: string, restored?: readonly UnknownKey[]): Promise<void>;
  /** The keys of config.json this version does not know (a removed server's go with it, for Undo). */
  unknownKeys?(): readonly UnknownKey[];
  pool: UpstreamPool;
  policy: Pick<PolicyRuntime, 'cache' | 'pins' | 'pendingMisfit'>;
  /** Rebuilds the catalog now (after a policy or settings change). */
  refreshCatalog(): void;
  emit(event: HubEventInput): void;
  /** The known secret values, masked in what a test reports (stderr, errors). */
  secrets: Pick<SecretValues, 'snapshot'>;
  /** Where env and header values go (issue 15); without one they stay in config.json. */
  secretStore?: SecretStore;
  /** Where the compression API key goes; without it the key stays in config.json. */
  settingsSecrets?: Pick<SettingsSecrets, 'keep' | 'view'>;
  /** Forgets a removed server's OAuth tokens and registration (issue 15). */
  forgetSignIn?(id: string): Promise<void>;
  /** Where removed servers wait for Undo (tests pass one with a short time). */
  removed?: RemovedServers;
  /** The kept results: a quota lowered in Settings evicts what is over it at once. */
  spill?: Pick<SpillStore, 'cleanup'>;
  /** The event log: a retention changed in Settings deletes the files older than it at once (a failure is said in the log). */
  events?: Pick<EventLog, 'setRetentionDays'>;
  /** Each server's revision, as upstreams.list shows it (shared with the status reports). */
  revisions?: ServerRevisions;
  /** Where this hub listens and keeps its data: a server that is the hub itself is not added. */
  ownHub?(): HubIdentity;
}

/**
 * A server's new config: as sent (`upstreams.update`; refused if `revision`, the edit's start, is no longer
 * the stored one's), or made from the config saved when the change runs (a registry update: what was changed meanwhile is kept).
 */
export type UpstreamUpdate =
  { id: string; config: unknown; revision?: string } | { id: string; change(current: ServerConfig): ServerConfig | Promise<ServerConfig> };

/** What an update leaves to do once the server's old process has stopped (see #restart). */
interface PendingRestart {
  id: string;
  /** The config before the change: its stored values are forgotten once no config refers to them. */
  before: ServerConfig;
  /** The old process stopping; undefined when nothing changed that needs a restart. */
  stopping: Promise<void> | undefined;
}

export class HubControl {
  readonly #removed: RemovedServers;
  readonly #revisions: ServerRevisions;
  /** The last change in line (see #serial). */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: HubControlDeps) {
    this.#removed = deps.removed ?? new RemovedServers();
    this.#revisions = deps.revisions ?? new ServerRevisions();
  }

  /**
   * Runs one change of the config at a time, each reading deps.config() inside: the config only changes
   * once a write has finished, so two changes that read it at once would each save over the other.
   * Waits that do not touch the config (an old process stopping) stay outside, so a server that will not
   * stop holds no other change up.
   */
  #serial<T>(change: () => Promise<T>): Promise<T> {
    const done = this.#queue.then(change);
    this.#queue = done.catch(() => undefined);
    return done;
  }

  addUpstream(req: { id?: string; name?: string; config: unknown }): Promise<{ id: string }> {
    return this.#serial(() => this.#add(req, this.#changes()));
  }

  /** The store's writes of one change, to take back if its save is refused. */
  #changes(): SecretChanges | undefined {
    return this.deps.secretStore && new SecretChanges(this.deps.secretStore);
  }

  /** Puts the store back as it was before a change whose save failed; a store refusing is said in the log. */
  async #takeBack(changes: SecretChanges | undefined, id: string): Promise<void> {
    await changes
      ?.undo()
      .catch((err: Error) =>
        this.deps.emit({ type: 'log', level: 'warn', message: `Could not put back the stored secrets of ${id}: ${err.message ?? err}` }),
      );
  }

  /**
   * Adds a server with its policies: Undo's (`held`: it goes back as it was, headers unchecked), or none
   * (a new one never gets what an older version left under its id).
   */
  async #add(
    req: { id?: string; name?: string; config: unknown },
    changes: SecretChanges | undefined,
    held?: Pick<RemovedServer, 'config' | 'policies' | 'unknown'>,
  ): Promise<{ id: string }> {
    const config = this.deps.config();
    const cfg = validServer(req.config);
    if (!held) refuseThisHub(cfg, this.deps.ownHub?.());
    // A new server has nothing stored, so a masked value (bullets) in its headers stands for nothing; Undo's go back as they were.
    refuseUnsendableHeaders(cfg, held?.config);
    const policies: ServerPolicies = held?.policies ?? {};
    let id: string;
    if (req.id !== undefined) {
      if (!SERVER_ID_PATTERN.test(req.id)) throw new ControlError('invalid', 'id: use 1-40 letters, digits, "_" or "-"', 'id');
      if (ownValue(config.servers, req.id)) throw new ControlError('conflict', `A server with id "${req.id}" already exists`, 'id');
      id = req.id;
    } else {
      id = uniqueServerId(req.name ?? (cfg.type === 'stdio' ? cfg.command : new URL(cfg.url).hostname), Object.keys(config.servers));
    }
    let saved = cfg;
    let written = false;
    try {
      if (changes) ({ config: saved, changed: written } = await storeCall(() => storeServerSecrets(changes, id, cfg)));
      await this.deps.saveConfig(
        { ...config, servers: { ...config.servers, [id]: saved }, policies: withServerPolicies(config.policies, id, policies) },
        `server ${id} added`,
        held?.unknown,
      );
    } catch (err) {
      // Nothing half-saved: the store holds what it held before (a value under this id may be a stopping server's).
      await this.#takeBack(changes, id);
      throw err;
    }
    if (written) this.#revisions.secretsWritten(id);
    this.deps.pool.add(id, saved);
    return { id };
  }

  async updateUpstream(req: UpstreamUpdate): Promise<{ id: string }> {
    const saving = 'change' in req ? () => this.#saveUpdate(req.id, req.change) : () => this.#saveUpdate(req.id, () => req.config, req.revision);
    await this.#restart(await this.#serial(saving));
    return { id: req.id };
  }

  /** Saves a server's new config (made from its saved one; see ServerRevisions) and sets its old process stopping; #restart does the rest. */
  async #saveUpdate(id: string, change: (current: ServerConfig) => unknown, revision?: string): Promise<PendingRestart> {
    const config = this.deps.config();
    const before = ownValue(config.servers, id);
    if (!before) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
    this.#revisions.check(id, before, revision);
    const cfg = validServer(await change(before));
    // A masked secret sent back unchanged from a list keeps the stored value.
    const restored = restoreMaskedSecrets(cfg, before);
    refuseUnsendableHeaders(restored, before);
    refuseThisHub(restored, this.deps.ownHub?.(), before);
    const changes = this.#changes();
    let merged = restored;
    let changed = false;
    try {
      if (changes) ({ config: merged, changed } = await storeCall(() => storeServerSecrets(changes, id, restored)));
      await this.deps.saveConfig({ ...config, servers: { ...config.servers, [id]: merged } }, `server ${id} updated`);
    } catch (err) {
      // A refused save leaves the old values in the store: the next start must not run with the refused ones.
      await this.#takeBack(changes, id);
      throw err;
    }
    if (changed) this.#revisions.secretsWritten(id);
    // A new secret value reads the same in the config (a reference): it still needs a restart.
    if (!changed && JSON.stringify(before) === JSON.stringify(merged) && this.deps.pool.has(id)) return { id, before, stopping: undefined };
    // Out of the pool while the change holds the lock: a later change finds no old process to keep.
    return { id, before, stopping: this.deps.pool.remove(id) };
  }

  /** Once the old process has stopped: starts the server as the config holds it by then, and forgets old values. */
  async #restart({ id, before, stopping }: PendingRestart): Promise<void> {
    if (!stopping) return;
    try {
      await stopping;
    } finally {
      await this.#serial(async () => {
        // A later change may have updated or removed the server meanwhile (and started it): the config now counts.
        const now = ownValue(this.deps.config().servers, id);
        if (now && !this.deps.pool.has(id)) this.deps.pool.add(id, now);
        this.deps.policy.cache.clear(id);
        this.deps.refreshCatalog();
        // Only once the old process has stopped: what it prints on its way out may quote the old values.
        await this.#forgetOld(id, before);
      });
    }
  }

  async removeUpstream(id: string): Promise<{ removed: boolean; undoable: boolean }> {
    const { cfg, undoable, stopping } = await this.#serial(async () => {
      const config = this.deps.config();
      const removed = ownValue(config.servers, id);
      if (!removed) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
      const { [id]: _removed, ...rest } = config.servers;
      // Read before the save leaves them out of the file: Undo puts them back.
      const unknown = this.deps.unknownKeys?.() ?? [];
      // Its policies go with it: a server added later under the same id must not get its hidden values.
      await this.deps.saveConfig({ ...config, servers: rest, policies: withoutServer(config.policies, id) }, `server ${id} removed`);
      // Read before they are forgotten; a store that cannot answer only means no Undo.
      const kept = await this.#removed.keep(id, removed, policiesOf(config.policies, id), this.deps.secretStore, unknown).then(
        () => true,
        () => false,
      );
      const leaving = this.deps.pool.remove(id);
      this.deps.policy.cache.clear(id);
      await this.deps.policy.pins
        .forgetServer(id)
        .catch((err: Error) =>
          this.deps.emit({ type: 'log', level: 'warn', message: `Could not forget the tool pins of ${id}: ${err.message ?? err}` }),
        );
      this.deps.refreshCatalog();
      return { cfg: removed, undoable: kept, stopping: leaving };
    });
    // The process stops first: what it prints on its way out may quote its secrets, masked while they are known.
    await stopping;
    await this.#serial(async () => {
      // Only what no config refers to by then: the same id may have been added again (Undo, or a new server).
      await this.#forgetOld(id, cfg);
      const forgetSignIn = this.deps.forgetSignIn;
      if (forgetSignIn && !ownValue(this.deps.config().servers, id)) await this.#forget(() => forgetSignIn(id), id);
    });
    return { removed: true, undoable };
  }

  /** Adds back a server removed in the last few minutes, with its secret values and its sign-in. */
  undoRemove(id: string): Promise<{ id: string }> {
    return this.#serial(async () => {
      if (ownValue(this.deps.config().servers, id))
        throw new ControlError('conflict', `A server named "${id}" was added since: remove or rename it, then press Undo again.`, 'id');
      // Still held until it is back: an Undo refused (a hand edit, a locked keychain) can be tried again.
      const held = this.#removed.held(id);
      if (!held)
        throw new ControlError(
          'not_found',
          `"${id}" can no longer be put back: a removed server can be put back for ${UNDO_MS / 60_000} minutes, while Spillway runs. Add it again.`,
          'id',
        );
      const changes = this.#changes();
      try {
        // The sign-in first: the server then starts signed in.
        if (changes) for (const [name, value] of Object.entries(held.signIn)) await storeCall(() => changes.set(id, name, value));
        const added = await this.#add({ id, config: held.config }, changes, held);
        this.#removed.take(id);
        return added;
      } catch (err) {
        await this.#takeBack(changes, id);
        throw undoRefusal(id, err);
      }
    });
  }

  async restartUpstream(id: string): Promise<{ status: UpstreamStatus }> {
    const cfg = ownValue(this.deps.config().servers, id);
    if (!cfg) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
    this.deps.policy.cache.clear(id);
    const up = await this.deps.pool.restart(id, cfg);
    return { status: up.status };
  }

  /** Tests a server config without saving it (upstream-test.ts); with the `id` being edited, masked values sent back stand for its stored ones. */
  async testUpstream(config: unknown, id?: string): ReturnType<typeof testUpstream> {
    const stored = id === undefined ? undefined : ownValue(this.deps.config().servers, id);
    const restored = { ...restoreMaskedSecrets(validServer(config), stored), enabled: true };
    // Every header is checked: a stored one a request cannot carry is named, not left to fetch's words.
    refuseUnsendableHeaders(restored, undefined);
    // Values kept in the store (references in the config) are the server's own: the test uses them.
    const store = this.deps.secretStore;
    return testUpstream(this.deps, store ? await storeCall(() => resolveServerSecrets(store, id ?? '', restored)) : restored);
  }

  /** Forgets the stored values `old` referred to that the server's config no longer does (all, once it is gone). */
  async #forgetOld(id: string, old: ServerConfig): Promise<void> {
    const store = this.deps.secretStore;
    if (!store) return;
    const now = ownValue(this.deps.config().servers, id);
    await this.#forget(() => (now ? forgetUnreferenced(store, id, old, now) : forgetServerSecrets(store, id, old)), id);
  }

  /** Forgets stored values no config refers to any more; a store refusing leaves a stray entry, said in the log. */
  async #forget(run: () => Promise<void>, id: string): Promise<void> {
    await run().catch((err: Error) =>
      this.deps.emit({ type: 'log', level: 'warn', message: `Could not forget the old secrets of ${id}: ${err.message ?? err}` }),
    );
  }

  /**
   * Saves the policies `change` makes of the current ones (validated by the caller; undefined: nothing to
   * save) and applies them at once; upstreams keep running.
   */
  setPolicies(change: (current: Policies) => Policies | undefined, what: string, server?: string): Promise<void> {
    return this.#serial(async () => {
      const config = this.deps.config();
      const policies = change(config.policies);
      if (!policies) return;
      await this.deps.saveConfig({ ...config, policies }, what);
      this.deps.policy.cache.clear(server);
      this.deps.refreshCatalog();
    });
  }

  /**
   * Changes a server's prefix or timeout (saved in its ServerConfig, applied without a restart) or its
   * enabled switch (which starts or stops it).
   */
  async setServerFields(id: string, fields: { enabled?: boolean; prefix?: boolean; timeoutMs?: number }): Promise<void> {
    const pending = await this.#serial(async () => {
      const config = this.deps.config();
      const cfg = ownValue(config.servers, id);
      if (!cfg) throw new ControlError('not_found', `No server with id "${id}"`, 'server');
      const next = { ...cfg, ...fields };
      if (JSON.stringify(next) === JSON.stringify(cfg)) return undefined;
      if (fields.enabled !== undefined && fields.enabled !== cfg.enabled) return this.#saveUpdate(id, () => next);
      await this.deps.saveConfig({ ...config, servers: { ...config.servers, [id]: next } }, `server ${id} updated`);
      this.deps.policy.cache.clear(id);
      this.deps.refreshCatalog();
      return undefined;
    });
    if (pending) await this.#restart(pending);
  }

  /** Approves a withheld tool's new definition; it is listed again at once. */
  async approvePin(server: string, tool: string): Promise<boolean> {
    // Read before approving: the withheld definition is the one pinned.
    const misfit = this.deps.policy.pendingMisfit(server, tool);
    const approved = await this.deps.policy.pins.approve(server, tool);
    if (approved) {
      this.deps.emit({ type: 'tool.approved', level: 'info', server, tool });
      if (misfit) {
        this.deps.emit({
          type: 'log',
          level: 'warn',
          server,
          message:
            `The new definition of "${tool}" on ${server} is approved, but its policy's value for "${misfit.parameter}" does not fit it. ` +
            `${misfit.message}. Calls of the tool are refused until you change or remove that value in Tools & policies (${misfit.field}).`,
        });
      }
      this.deps.refreshCatalog();
    }
    return approved;
  }

  async setSettings(patch: SettingsPatch): Promise<Settings> {
    const { settings, applying } = await this.#serial(() => saveSettings(this.deps, patch));
    // Outside the line of changes (evicting many results must not hold the next one up), but answered after.
    await applying;
    return settings;
  }
}

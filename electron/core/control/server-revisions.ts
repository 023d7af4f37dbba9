/**
 * Each server's revision: a short name for its stored config, shown by upstreams.list. An edit sends back
 * the revision its form was opened with; another one now means the server was changed since (another
 * window or tab, its on/off switch, a registry update; or Spillway restarted meanwhile, perhaps reading a
 * hand edit of config.json), and saving the form's copy would undo that change. A hand edit while Spillway
 * runs is no such change: the hub does not read the file again, and refuses every save instead.
 */
import { createHash } from 'node:crypto';
import type { ServerConfig } from '../../../shared/config.js';
import { ControlError } from './control-error.js';

/** What an update sent with an old revision is refused with. */
export const CHANGED_ELSEWHERE =
  'This server was changed after you opened this form, and saving the form would undo that change. ' +
  'Reload it to see the change, then make yours again.';

export class ServerRevisions {
  /**
   * Saves per server that wrote a secret value: a new value reads the same in config.json (a reference to
   * the store), so the config alone would not show it. Kept while the hub runs: after a restart, a form
   * opened before it is refused once and reloaded.
   */
  readonly #secretWrites = new Map<string, number>();

  /**
   * The last revision worked out for each stored config object, with what it was worked out from besides
   * the config. upstreams.list, which the window asks often, then hashes only a server changed since: every
   * change saves a new config object (Hub.saveConfig), and a secret written bumps #secretWrites. Keyed by
   * the object, so that a config no longer stored takes its entry with it.
   */
  readonly #known = new WeakMap<ServerConfig, { id: string; secretWrites: number; revision: string }>();

  /** The revision of a server's config as stored now. */
  of(id: string, stored: ServerConfig): string {
    const secretWrites = this.#secretWrites.get(id) ?? 0;
    const known = this.#known.get(stored);
    if (known && known.id === id && known.secretWrites === secretWrites) return known.revision;
    return this.#hash(id, stored, secretWrites);
  }

  /** Notes that a save wrote one of the server's secret values to the store. */
  secretsWritten(id: string): void {
    this.#secretWrites.set(id, (this.#secretWrites.get(id) ?? 0) + 1);
  }

  /**
   * Throws `conflict` at field `revision` when `sent` (the revision an edit started from) is not the stored
   * config's (the field tells it from other conflicts); none sent: no check.
   */
  check(id: string, stored: ServerConfig, sent: string | undefined): void {
    if (sent === undefined) return;
    // Hashed again, not taken from #known: a config changed in place would keep its object, and the save
    // it was changed behind must still be refused.
    if (sent !== this.#hash(id, stored, this.#secretWrites.get(id) ?? 0)) throw new ControlError('conflict', CHANGED_ELSEWHERE, 'revision');
  }

  #hash(id: string, stored: ServerConfig, secretWrites: number): string {
    const hash = createHash('sha256');
    hash.update(JSON.stringify(stored));
    hash.update(`\n${secretWrites}`);
    const revision = hash.digest('base64url').slice(0, 16);
    this.#known.set(stored, { id, secretWrites, revision });
    return revision;
  }
}

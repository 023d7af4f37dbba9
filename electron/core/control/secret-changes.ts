/**
 * Secret store writes that can be taken back. A change writes its values into the store before it saves
 * config.json (the file must never hold a plain value); when that save is refused (the file was edited by
 * hand, the disk is full) the store must be left as it was, or the refused value would be the one used at
 * the next start.
 */
import type { SecretStore } from '../secrets/secret-store.js';

interface Before {
  serverId: string;
  name: string;
  /** The value stored before the first write of this change; undefined when none was. */
  value: string | undefined;
}

/** A secret store that notes, before each first write of a name, the value it replaces. */
export class SecretChanges implements SecretStore {
  readonly #before = new Map<string, Before>();

  constructor(private readonly store: SecretStore) {}

  get kind() {
    return this.store.kind;
  }

  get(serverId: string, name: string): Promise<string | undefined> {
    return this.store.get(serverId, name);
  }

  async set(serverId: string, name: string, value: string): Promise<void> {
    await this.#note(serverId, name);
    await this.store.set(serverId, name, value);
  }

  async delete(serverId: string, name: string): Promise<void> {
    await this.#note(serverId, name);
    await this.store.delete(serverId, name);
  }

  known(): readonly string[] {
    return this.store.known();
  }

  async #note(serverId: string, name: string): Promise<void> {
    const key = JSON.stringify([serverId, name]);
    if (!this.#before.has(key)) this.#before.set(key, { serverId, name, value: await this.store.get(serverId, name) });
  }

  /** Puts every value written since back as it was; rejects with the first refusal, once all were tried. */
  async undo(): Promise<void> {
    const before = [...this.#before.values()];
    this.#before.clear();
    let refusal: unknown;
    for (const { serverId, name, value } of before) {
      try {
        await (value === undefined ? this.store.delete(serverId, name) : this.store.set(serverId, name, value));
      } catch (err) {
        refusal ??= err;
      }
    }
    if (refusal !== undefined) throw refusal;
  }
}

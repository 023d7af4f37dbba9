/**
 * The app's own secret in settings (issue 15): the compression API key lives in the secret store, and
 * config.json holds `"<secret>"` in its place. The hub reads settings through `view()`, which puts the
 * stored value back (the same object while nothing changed: settings are read on every call).
 */
import { SECRET_REF, type Settings } from '../../../shared/config.js';
import type { SecretStore } from './secret-store.js';

/** The store's owner for settings values: parentheses keep it apart from any server id. */
export const SETTINGS_OWNER = '(settings)';
const API_KEY = 'compression:apiKey';

export class SettingsSecrets {
  #apiKey: string | undefined;
  #from: Settings | undefined;
  #view: Settings | undefined;

  constructor(private readonly store: SecretStore) {}

  /** Reads the stored key once at start, when the config refers to it. */
  async load(settings: Settings): Promise<void> {
    if (settings.compression.apiKey === SECRET_REF) this.#apiKey = await this.store.get(SETTINGS_OWNER, API_KEY);
    this.#from = undefined;
  }

  /** The settings with the stored key in place of its reference. */
  view(settings: Settings): Settings {
    if (settings.compression.apiKey !== SECRET_REF) return settings;
    if (this.#from !== settings) {
      this.#from = settings;
      this.#view = { ...settings, compression: { ...settings.compression, apiKey: this.#apiKey } };
    }
    return this.#view!;
  }

  /**
   * Settings about to be saved: a plain key goes into the store and the reference into the file; a key
   * cleared is forgotten. Resolves with what config.json may hold.
   */
  async keep(next: Settings, before: Settings): Promise<Settings> {
    const key = next.compression.apiKey;
    if (key !== undefined && key !== SECRET_REF) {
      await this.store.set(SETTINGS_OWNER, API_KEY, key);
      this.#apiKey = key;
      this.#from = undefined;
      return { ...next, compression: { ...next.compression, apiKey: SECRET_REF } };
    }
    if (key === undefined && before.compression.apiKey !== undefined) {
      await this.store.delete(SETTINGS_OWNER, API_KEY);
      this.#apiKey = undefined;
    }
    return next;
  }
}

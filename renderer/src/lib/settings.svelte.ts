/**
 * App settings: the saved (in-force) values, and per-control save state and errors, so an error shows
 * next to the control that caused it (or the one the hub named in `field`).
 */
import type { ApiFailure, Backend } from './api.js';
import { SettingsSchema, type Settings, type SettingsPatch } from '../../../shared/config.js';

type SpillSettings = Settings['spill'];

/** The controls the Settings view has; a hub error naming one of them is shown there. */
export const SETTINGS_FIELDS = [
  'port',
  'logRetentionDays',
  'paused',
  'spill.action',
  'spill.thresholdTokens',
  'spill.previewTokens',
  'spill.ttlHours',
  'spill.quotaBytes',
] as const;
export type SettingsField = (typeof SETTINGS_FIELDS)[number];

function isField(name: string | undefined): name is SettingsField {
  return name !== undefined && (SETTINGS_FIELDS as readonly string[]).includes(name);
}

/** The defaults, to say whether a value is the default or was changed. */
export const DEFAULT_SETTINGS: Settings = SettingsSchema.parse({});

export class SettingsState {
  #saved = $state<Settings | undefined>();
  #loadError = $state<ApiFailure | undefined>();
  #errors = $state<Partial<Record<SettingsField, ApiFailure>>>({});
  #saving = $state<Partial<Record<SettingsField, boolean>>>({});
  /** The control saved last, for a brief "Saved" note. */
  #lastSaved = $state<SettingsField | undefined>();
  /** The last threshold in force, kept while large results are let through, to bring it back on re-enable. */
  #lastThreshold: number | undefined;
  readonly #backend: Backend;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get saved(): Settings | undefined {
    return this.#saved;
  }
  get loadError(): ApiFailure | undefined {
    return this.#loadError;
  }
  get lastSaved(): SettingsField | undefined {
    return this.#lastSaved;
  }
  errorFor(field: SettingsField): ApiFailure | undefined {
    return this.#errors[field];
  }
  isSaving(field: SettingsField): boolean {
    return this.#saving[field] === true;
  }
  /** The threshold to turn "Act on large results" back on with: the last one in force, else the default. */
  get thresholdToRestore(): number {
    return this.#lastThreshold ?? DEFAULT_SETTINGS.spill.thresholdTokens ?? 10_000;
  }

  #keep(saved: Settings): void {
    this.#saved = saved;
    if (saved.spill.thresholdTokens !== null) this.#lastThreshold = saved.spill.thresholdTokens;
  }

  async load(): Promise<void> {
    const result = await this.#backend.call('settings.get', {});
    if (result.ok) {
      this.#keep(result.value);
      this.#loadError = undefined;
    } else {
      this.#loadError = result;
    }
  }

  /** Loads and reloads when the config changes elsewhere (tray, another window, the file). */
  start(): () => void {
    const stop = this.#backend.subscribe((e) => {
      if (e.type === 'config.changed') void this.load();
    });
    void this.load();
    return stop;
  }

  /** Saves what `patch` names (the hub keeps everything else) from the control `field`. */
  async save(field: SettingsField, patch: SettingsPatch): Promise<boolean> {
    this.#saving = { ...this.#saving, [field]: true };
    this.#errors = { ...this.#errors, [field]: undefined };
    const result = await this.#backend.call('settings.set', patch);
    this.#saving = { ...this.#saving, [field]: false };
    if (result.ok) {
      this.#keep(result.value);
      this.#lastSaved = field;
      return true;
    }
    // The hub may name another field than the control (e.g. preview must stay under the threshold).
    const at = isField(result.field) ? result.field : field;
    this.#errors = { ...this.#errors, [at]: result };
    this.#lastSaved = undefined;
    return false;
  }

  /**
   * Saves one spill setting. Only that field is sent, and the hub merges it into the spill settings:
   * the whole object, built from the values saved before, would undo another spill setting changed
   * while this one saved.
   */
  saveSpill<K extends keyof SpillSettings>(key: K, value: SpillSettings[K]): Promise<boolean> {
    const spill: NonNullable<SettingsPatch['spill']> = { [key]: value };
    return this.save(`spill.${key}`, { spill });
  }
}

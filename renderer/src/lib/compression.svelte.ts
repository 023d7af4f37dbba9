/**
 * The Compression settings (issue 8): the OpenAI-compatible endpoint's base URL, model and API key as
 * the user edits them, saving them, and the Test button's answer (latency, or the error).
 */
import type { ApiFailure, Backend, Res } from './api.js';
import { MASKED_SECRET, type Settings } from '../../../shared/config.js';

type Saved = Settings['compression'];
export type CompressionField = 'baseUrl' | 'model' | 'apiKey';
type Fields = Record<CompressionField, string>;
const FIELDS: CompressionField[] = ['baseUrl', 'model', 'apiKey'];

const fieldsOf = (saved: Saved): Fields => ({ baseUrl: saved.baseUrl ?? '', model: saved.model ?? '', apiKey: saved.apiKey ?? '' });

export class CompressionState {
  baseUrl = $state('');
  model = $state('');
  /** `***` (from the hub) means "keep the stored key"; empty clears it. */
  apiKey = $state('');
  #synced = $state<Fields>({ baseUrl: '', model: '', apiKey: '' });
  #busy = $state<'saving' | 'testing' | undefined>();
  #error = $state<ApiFailure | undefined>();
  #saved = $state(false);
  #test = $state<Res<'compression.test'> | undefined>();
  readonly #backend: Backend;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get dirty(): boolean {
    return this.baseUrl !== this.#synced.baseUrl || this.model !== this.#synced.model || this.apiKey !== this.#synced.apiKey;
  }
  get busy(): 'saving' | 'testing' | undefined {
    return this.#busy;
  }
  /** A failed save or test call, with the field the hub named. */
  get error(): ApiFailure | undefined {
    return this.#error;
  }
  errorFor(field: CompressionField): ApiFailure | undefined {
    return this.#error?.field?.endsWith(field) ? this.#error : undefined;
  }
  /** A failure not about one of the three fields, shown under the form. */
  get generalError(): ApiFailure | undefined {
    const f = this.#error?.field;
    return f && FIELDS.some((x) => f.endsWith(x)) ? undefined : this.#error;
  }
  get justSaved(): boolean {
    return this.#saved;
  }
  get testResult(): Res<'compression.test'> | undefined {
    return this.#test;
  }
  get hasStoredKey(): boolean {
    return this.#synced.apiKey === MASKED_SECRET;
  }

  /** Takes the saved values, unless the user is editing. */
  sync(saved: Saved | undefined): void {
    if (!saved || this.dirty) return;
    const next = fieldsOf(saved);
    this.#synced = next;
    this.baseUrl = next.baseUrl;
    this.model = next.model;
    this.apiKey = next.apiKey;
  }

  async save(): Promise<boolean> {
    this.#busy = 'saving';
    this.#error = undefined;
    this.#saved = false;
    const sent: Fields = { baseUrl: this.baseUrl, model: this.model, apiKey: this.apiKey };
    const result = await this.#backend.call('settings.set', {
      compression: { baseUrl: sent.baseUrl.trim(), model: sent.model.trim(), apiKey: sent.apiKey },
    });
    this.#busy = undefined;
    if (!result.ok) {
      this.#error = result;
      return false;
    }
    // Each field shows what the hub now holds, except one typed in while saving: that edit stays, to save next.
    const next = fieldsOf(result.value.compression);
    this.#synced = next;
    for (const name of FIELDS) if (this[name] === sent[name]) this[name] = next[name];
    this.#saved = true;
    return true;
  }

  /** Tests the saved settings, saving what was edited first. */
  async test(): Promise<void> {
    this.#test = undefined;
    if (this.dirty && !(await this.save())) return;
    this.#busy = 'testing';
    this.#error = undefined;
    const result = await this.#backend.call('compression.test', {});
    this.#busy = undefined;
    if (result.ok) this.#test = result.value;
    else this.#error = result;
  }
}

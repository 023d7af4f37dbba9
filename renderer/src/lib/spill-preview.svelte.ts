/** The spilled original of a call, read through `spill.preview` by its handle (never a file path). */
import type { ApiFailure, Backend, Res } from './api.js';
import { SpillViewerState } from './spill-viewer.svelte.js';

export type SpillPreview = Res<'spill.preview'>;

export interface PreviewEntry {
  loading: boolean;
  preview?: SpillPreview;
  error?: ApiFailure;
}

export class SpillPreviewState {
  #byHandle = $state<Record<string, PreviewEntry>>({});
  readonly #backend: Backend;
  readonly #maxTokens: number;

  constructor(backend: Backend, maxTokens = 2_000) {
    this.#backend = backend;
    this.#maxTokens = maxTokens;
  }

  of(handle: string): PreviewEntry | undefined {
    return this.#byHandle[handle];
  }

  /** A pager over the whole original of a previewed result. */
  viewer(preview: SpillPreview): SpillViewerState {
    return new SpillViewerState(this.#backend, preview.entry);
  }

  async load(handle: string): Promise<void> {
    this.#byHandle = { ...this.#byHandle, [handle]: { loading: true } };
    const result = await this.#backend.call('spill.preview', { handle, maxTokens: this.#maxTokens });
    this.#byHandle = {
      ...this.#byHandle,
      [handle]: result.ok ? { loading: false, preview: result.value } : { loading: false, error: result },
    };
  }
}

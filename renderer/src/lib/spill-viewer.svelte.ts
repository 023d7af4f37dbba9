/**
 * The whole spilled original of a call, paged, searched and saved through `spill.read`: the same read
 * ops, with the same limits, as the model's `spillway__read_result` (issue 14 item 9).
 */
import type { SpillEntryInfo } from '../../../shared/api-spill.js';
import type { ApiFailure, Backend } from './api.js';
import { parseGrep, parsePage, splitReadTail, type SpillMatch, type SpillPage } from './spill-pages.js';

export interface SpillSearch {
  pattern: string;
  summary: string;
  matches: SpillMatch[];
}

/** The most one save reads per call: the read tool's output cap. */
const SAVE_CHUNK_TOKENS = 8_000;
const SEARCH_MATCHES = 200;

export class SpillViewerState {
  page = $state<SpillPage | undefined>();
  pageError = $state<ApiFailure | undefined>();
  loading = $state(false);
  search = $state<SpillSearch | undefined>();
  searchError = $state<ApiFailure | undefined>();
  searching = $state(false);
  saving = $state(false);
  savedChars = $state(0);
  saveError = $state<ApiFailure | undefined>();
  readonly #backend: Backend;
  readonly entry: SpillEntryInfo;
  readonly pageLines: number;

  constructor(backend: Backend, entry: SpillEntryInfo, pageLines = 100) {
    this.#backend = backend;
    this.entry = entry;
    this.pageLines = pageLines;
  }

  get total(): number {
    return this.page?.total ?? this.entry.lines;
  }
  get hasPrevious(): boolean {
    return (this.page?.from ?? 1) > 1;
  }
  get hasNext(): boolean {
    return this.page !== undefined && this.page.to < this.page.total;
  }

  /** Shows the page of `pageLines` lines that holds line `line`; a page cut short of it (long lines) starts at the line. */
  async showLine(line: number): Promise<void> {
    const start = Math.floor((Math.max(1, line) - 1) / this.pageLines) * this.pageLines + 1;
    await this.#showPage(start);
    if (this.page && this.page.from === start && this.page.to < line) await this.#showPage(line);
  }

  /** The page after the lines shown: a page the read cut short of `pageLines` goes on from its last line. */
  async next(): Promise<void> {
    if (this.page && this.hasNext) await this.#showPage(this.page.to + 1);
  }

  async previous(): Promise<void> {
    if (this.page && this.hasPrevious) await this.#showPage(Math.max(1, this.page.from - this.pageLines));
  }

  async #showPage(start: number): Promise<void> {
    this.loading = true;
    const r = await this.#backend.call('spill.read', { handle: this.entry.handle, op: 'slice', start, end: start + this.pageLines - 1 });
    this.loading = false;
    if (!r.ok) {
      this.pageError = r;
      return;
    }
    this.pageError = undefined;
    this.page = parsePage(r.value.text, start, this.pageLines, this.entry.lines);
  }

  /** Runs the model's grep (a regular expression, case-insensitive) over the whole original. */
  async find(pattern: string): Promise<void> {
    if (pattern.trim() === '') {
      this.search = undefined;
      this.searchError = undefined;
      return;
    }
    this.searching = true;
    const r = await this.#backend.call('spill.read', { handle: this.entry.handle, op: 'grep', pattern, maxMatches: SEARCH_MATCHES });
    this.searching = false;
    if (!r.ok) {
      this.search = undefined;
      this.searchError = r;
      return;
    }
    this.searchError = undefined;
    this.search = { pattern, ...parseGrep(r.value.text) };
  }

  /** The whole original, read in `read` chunks of the tool's output cap; undefined when a read failed. */
  async wholeText(): Promise<string | undefined> {
    this.saving = true;
    this.saveError = undefined;
    this.savedChars = 0;
    const chunks: string[] = [];
    try {
      for (let offset = 0; ;) {
        const r = await this.#backend.call('spill.read', { handle: this.entry.handle, op: 'read', offset, maxTokens: SAVE_CHUNK_TOKENS });
        if (!r.ok) {
          this.saveError = r;
          return undefined;
        }
        const { chunk, end } = splitReadTail(r.value.text);
        chunks.push(chunk);
        offset += chunk.length;
        this.savedChars = offset;
        if (end || chunk.length === 0) return chunks.join('');
      }
    } finally {
      this.saving = false;
    }
  }

  /** A file name for the saved original, by its content type. */
  get fileName(): string {
    return `spillway-${this.entry.handle}.${this.entry.contentType.includes('json') ? 'json' : 'txt'}`;
  }
}

/**
 * Ranked full-text search over tool names and descriptions (MiniSearch, BM25+), for the dispatch tool.
 * The index is rebuilt only when the tool list it was built from changes.
 */
import MiniSearch from 'minisearch';

export interface SearchableTool {
  /** The exposed name (unique). */
  name: string;
  server: string;
  /** The upstream's own name. */
  original?: string;
  title?: string;
  description?: string;
}

export interface ToolHit {
  name: string;
  server: string;
  score: number;
  description?: string;
}

/** Words too common in queries to say anything about a tool. */
const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'the',
  'of',
  'to',
  'in',
  'for',
  'on',
  'with',
  'or',
  'is',
  'it',
  'my',
  'me',
  'i',
  'that',
  'this',
  'from',
  'by',
]);

/** Splits `read_file`, `readFile`, `fs__list-dir` and prose into words. */
export function toolTerms(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return STOP_WORDS.has(lower) ? null : lower;
}

function fingerprint(tools: SearchableTool[]): string {
  return tools.map((t) => `${t.name}\u0000${t.server}\u0000${t.title ?? ''}\u0000${t.description ?? ''}`).join('\u0001');
}

export class ToolSearch {
  #index: MiniSearch<SearchableTool & { id: number }> | undefined;
  #built = '';
  #tools: SearchableTool[] = [];

  /** The best matches first, at most `limit`; names weigh more than descriptions. */
  search(tools: SearchableTool[], query: string, limit = 10): ToolHit[] {
    const index = this.#indexFor(tools);
    const hits = index.search(query, {
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
      boost: { name: 3, original: 3, title: 2, server: 1, description: 1 },
      combineWith: 'OR',
    });
    return hits.slice(0, Math.max(0, limit)).map((hit) => {
      const tool = this.#tools[hit.id as number];
      return {
        name: tool.name,
        server: tool.server,
        score: Math.round(hit.score * 1000) / 1000,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
      };
    });
  }

  #indexFor(tools: SearchableTool[]): MiniSearch<SearchableTool & { id: number }> {
    const print = fingerprint(tools);
    if (this.#index && print === this.#built) return this.#index;
    const index = new MiniSearch<SearchableTool & { id: number }>({
      fields: ['name', 'original', 'title', 'server', 'description'],
      tokenize: toolTerms,
      processTerm,
    });
    index.addAll(tools.map((t, id) => ({ ...t, id })));
    this.#index = index;
    this.#tools = tools.slice();
    this.#built = print;
    return index;
  }
}

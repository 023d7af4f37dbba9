/**
 * The index and the scoring pass of tool search (issue 17, tool-search.ts): per tool and field the stems'
 * counts, and BM25F over them for every tool that matches a query word. The same pass can score extra
 * `passes` alongside (other field weights, exact words only): the learned re-ranker (search-rerank.ts)
 * reads the ranker's score with parts left out, and one pass over the postings is cheaper than one per part.
 * Each extra pass's values are computed with the very expressions, in the very order, of a pass of its
 * own, so they are the same numbers to the bit (test/unit/tool-search-rerank-equivalence.test.ts).
 */
import { toolKind, type Intent } from './search-intent.js';
import type { SearchWeights } from './search-weights.js';
import { FIELD_COUNT, fieldTexts, type SearchableTool } from './search-fields.js';
import { normalizeTerm, proseTerms, relatedStems, stems, toolTerms } from './search-terms.js';

/** Fields of prose (title, description, parameter descriptions), split without breaking `GitHub` apart. */
const PROSE_FIELDS = new Set([1, 2, 4]);
/** A prefix match needs stems this long, the shorter at least this share of the longer. */
const MIN_PREFIX = 4;
const MIN_PREFIX_SHARE = 0.6;

/** A tool that calls itself deprecated ranks below its replacement, which usually matches the same words. */
const DEPRECATED_TEXT = /\bdeprecated\b/i;

/** Whether a request's word is a plural noun: `requests`, `entries`, not `status` or `class`. */
export function isPlural(word: string): boolean {
  const lower = word.toLowerCase();
  if (lower.length < 4 || !lower.endsWith('s') || /(ss|us|is)$/.test(lower)) return false;
  return normalizeTerm(lower.slice(0, -1)) === normalizeTerm(lower) || lower.endsWith('ies');
}

/** A word in the singular, lower case: `entities` → `entity`, `file` → `file`. */
export function singular(word: string): string {
  const lower = word.toLowerCase();
  if (!isPlural(lower)) return lower;
  return lower.endsWith('ies') ? `${lower.slice(0, -3)}y` : lower.slice(0, -1);
}

interface Posting {
  doc: number;
  tf: number[];
}

export interface Doc {
  tool: SearchableTool;
  lengths: number[];
  kind: Intent;
  serverStems: Set<string>;
  /** The stems of the tool's own name. */
  nameStems: Set<string>;
  deprecated: boolean;
  /** Whether the tool's name starts with `list`. */
  lister: boolean;
  /** The name's words by stem, in the singular, with whether the name has them in the plural. */
  nameNumbers: Map<string, { singular: string; plural: boolean }>;
}

export interface Index {
  docs: Doc[];
  postings: Map<string, Posting[]>;
  /** Stems, in the order first seen. */
  vocabulary: string[];
  /** The stems long enough for a prefix match, sorted, each with its place in `vocabulary` (`at`). */
  prefixes: { terms: string[]; at: number[] };
  /** The first tool word seen for each stem, to say what matched. */
  surface: Map<string, string>;
  averages: number[];
  /** How many tools each server-name stem covers. */
  serverDocs: Map<string, number>;
  /** Name words (in the singular) that some tool names in the singular and another in the plural. */
  bothNumbers: Set<string>;
}

export function buildIndex(tools: SearchableTool[]): Index {
  const postings = new Map<string, Posting[]>();
  const surface = new Map<string, string>();
  const serverDocs = new Map<string, number>();
  const totals = new Array<number>(FIELD_COUNT).fill(0);
  const docs = tools.map((tool, doc): Doc => {
    const counts = new Map<string, number[]>();
    const texts = fieldTexts(tool);
    const lengths = texts.map((text, field) => {
      const words = PROSE_FIELDS.has(field) ? proseTerms(text) : toolTerms(text);
      let length = 0;
      for (const word of words) {
        const stem = normalizeTerm(word);
        if (!stem) continue;
        length++;
        if (!surface.has(stem)) surface.set(stem, word.toLowerCase());
        const tf = counts.get(stem) ?? new Array<number>(FIELD_COUNT).fill(0);
        tf[field]++;
        counts.set(stem, tf);
      }
      totals[field] += length;
      return length;
    });
    for (const [stem, tf] of counts) {
      const list = postings.get(stem) ?? [];
      list.push({ doc, tf });
      postings.set(stem, list);
    }
    const serverStems = new Set(stems(tool.server));
    for (const s of serverStems) serverDocs.set(s, (serverDocs.get(s) ?? 0) + 1);
    const nameStems = stems(texts[0]);
    return {
      tool,
      lengths,
      kind: toolKind({ name: texts[0], ...(tool.annotations ? { annotations: tool.annotations } : {}) }),
      serverStems,
      nameStems: new Set(nameStems),
      lister: nameStems[0] === 'list',
      nameNumbers: new Map(
        toolTerms(texts[0]).flatMap((w) => {
          const stem = normalizeTerm(w);
          return stem ? [[stem, { singular: singular(w), plural: isPlural(w) }] as const] : [];
        }),
      ),
      deprecated: DEPRECATED_TEXT.test(`${tool.title ?? ''} ${tool.annotations?.title ?? ''} ${tool.description ?? ''}`),
    };
  });
  const averages = totals.map((t) => Math.max(1, t / Math.max(1, tools.length)));
  const forms = new Map<string, Set<boolean>>();
  for (const d of docs) for (const { singular: word, plural } of d.nameNumbers.values()) forms.set(word, (forms.get(word) ?? new Set()).add(plural));
  const bothNumbers = new Set([...forms].flatMap(([word, seen]) => (seen.size === 2 ? [word] : [])));
  const vocabulary = [...postings.keys()];
  return { docs, postings, vocabulary, prefixes: sortedPrefixes(vocabulary), surface, averages, serverDocs, bothNumbers };
}

function sortedPrefixes(vocabulary: string[]): Index['prefixes'] {
  const at = vocabulary.flatMap((term, k) => (term.length >= MIN_PREFIX ? [k] : []));
  // By UTF-16 code units, as `<` compares: the terms that start with a stem are one run.
  at.sort((a, b) => (vocabulary[a] < vocabulary[b] ? -1 : vocabulary[a] > vocabulary[b] ? 1 : 0));
  return { terms: at.map((k) => vocabulary[k]), at };
}

/** Where `key` is, or would go, in sorted `terms`. */
function lowerBound(terms: string[], key: string): number {
  let lo = 0;
  let hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The places in the vocabulary of the stems a prefix match of `stem` can reach, in vocabulary order: those
 * that start with it (one run of the sorted stems) and the shorter ones it starts with (looked up each).
 */
function prefixCandidates(stem: string, { terms, at }: Index['prefixes']): number[] {
  const found: number[] = [];
  for (let k = lowerBound(terms, stem); k < terms.length && terms[k].startsWith(stem); k++) found.push(at[k]);
  for (let n = MIN_PREFIX; n < stem.length; n++) {
    const head = stem.slice(0, n);
    const k = lowerBound(terms, head);
    if (terms[k] === head) found.push(at[k]);
  }
  return found.sort((a, b) => a - b);
}

function idf(n: number, total: number): number {
  return Math.log(1 + (total - n + 0.5) / (n + 0.5));
}

/** The index stems one query stem reaches, each with its weight (the stem itself 1). */
export function variants(stem: string, index: Index, w: SearchWeights): Map<string, number> {
  const out = new Map<string, number>();
  if (index.postings.has(stem)) out.set(stem, 1);
  // WordNet only for a word the tools never use: for one they use, its general synonyms are mostly noise.
  for (const [related, weight] of relatedStems(stem, !index.postings.has(stem), w.related))
    if (index.postings.has(related) && !out.has(related)) out.set(related, weight);
  if (stem.length >= MIN_PREFIX) {
    // Only the stems that share a start with this one, in the order a scan of the whole vocabulary meets them.
    for (const k of prefixCandidates(stem, index.prefixes)) {
      const term = index.vocabulary[k];
      if (out.get(term) === 1 || term.length < MIN_PREFIX) continue;
      const [short, long] = term.length < stem.length ? [term, stem] : [stem, term];
      if (long.startsWith(short) && short.length >= MIN_PREFIX_SHARE * long.length)
        out.set(term, Math.max(out.get(term) ?? 0, long.length - short.length === 1 ? w.nearForm : w.prefix));
    }
  }
  return out;
}

export interface Match {
  score: number;
  /** Per query word: the index stem that matched it best. */
  words: Map<number, string>;
  /** The same tool's match under each extra pass of `score`, in the passes' order (none unless asked). */
  parts: readonly Match[];
}

/** The index stems a query stem reaches, with their weights (`variants`, kept for one search). */
export type Reach = (stem: string) => Map<string, number>;

/**
 * A pass scored alongside the main one: its own weights (fields, k1, server), and with `exact` only the
 * request's own stems counting (a related word's or prefix's weight 0, as if `reach` gave them so).
 */
export interface Pass {
  weights: SearchWeights;
  exact: boolean;
}

/** The parts of a match scored without extra passes (shared: nothing adds to it). */
const NO_PARTS: readonly Match[] = [];

/**
 * Scores every tool that matches at least one query word; with `passes`, each match's `parts` holds the
 * tool's match under each pass. A part's words are the main match's own map while they agree with it.
 */
export function score(
  index: Index,
  queryStems: string[],
  skip: ReadonlySet<string>,
  w: SearchWeights,
  reach: Reach,
  passes: readonly Pass[] = [],
): Map<number, Match> {
  const total = index.docs.length;
  const all = [w, ...passes.map((p) => p.weights)];
  const count = all.length;
  const exact = all.map((_, p) => p > 0 && passes[p - 1].exact);
  // A field's part of a pass is the main pass's own number when the weight and b are the same.
  const shared = all.map((pw) => pw.fields.map((f, k) => f.weight === w.fields[k].weight && f.b === w.fields[k].b));
  // A field of weight 0 adds +0 when its denominator is positive, as it is for b in [0, 1] (a field a stem is in has words).
  const none = all.map((pw) => pw.fields.map((f) => f.weight === 0 && f.b >= 0 && f.b <= 1));
  const fieldParts = new Array<number>(w.fields.length).fill(0);
  const matches = new Map<number, Match>();
  const unique = [...new Set(queryStems)];
  unique.forEach((stem, i) => {
    if (skip.has(stem)) return;
    // Each tool reached, in the order reached, has a slot: pass p's best value and stem are at slot × count + p.
    const slots = new Map<number, number>();
    const values: number[] = [];
    const terms: string[] = [];
    for (const [term, weight] of reach(stem)) {
      const list = index.postings.get(term) ?? [];
      const termIdf = idf(list.length, total);
      for (const { doc, tf } of list) {
        const lengths = index.docs[doc].lengths;
        let weighted = 0;
        for (let f = 0; f < w.fields.length; f++) {
          if (tf[f] === 0) continue;
          const { weight: fieldWeight, b } = w.fields[f];
          fieldParts[f] = (fieldWeight * tf[f]) / (1 - b + (b * lengths[f]) / index.averages[f]);
          weighted += fieldParts[f];
        }
        const value = (weight * termIdf * weighted) / (w.k1 + weighted);
        let slot = slots.get(doc);
        const fresh = slot === undefined;
        if (slot === undefined) slots.set(doc, (slot = slots.size));
        const at = slot * count;
        if (fresh || value > values[at]) {
          values[at] = value;
          terms[at] = term;
        }
        for (let p = 1; p < count; p++) {
          const pw = all[p];
          let own = 0;
          for (let f = 0; f < pw.fields.length; f++) {
            if (tf[f] === 0 || none[p][f]) continue;
            const { weight: fieldWeight, b } = pw.fields[f];
            own += shared[p][f] ? fieldParts[f] : (fieldWeight * tf[f]) / (1 - b + (b * lengths[f]) / index.averages[f]);
          }
          // Exact words only: as if `reach` gave every stem but the request's own (weight 1) the weight 0.
          const passValue = ((exact[p] ? (weight === 1 ? 1 : 0) : weight) * termIdf * own) / (pw.k1 + own);
          if (fresh || passValue > values[at + p]) {
            values[at + p] = passValue;
            terms[at + p] = term;
          }
        }
      }
    }
    // A server's name counts only as a whole word ("files" does not reach "filesystem").
    const serverCount = index.serverDocs.get(stem);
    if (serverCount) {
      const added = all.map((pw) => pw.server * idf(serverCount, total) * (1 / (pw.k1 + 1)));
      index.docs.forEach((d, doc) => {
        if (!d.serverStems.has(stem)) return;
        let slot = slots.get(doc);
        const fresh = slot === undefined;
        if (slot === undefined) slots.set(doc, (slot = slots.size));
        for (let p = 0, at = slot * count; p < count; p++) {
          values[at + p] = (fresh ? 0 : values[at + p]) + added[p];
          if (fresh) terms[at + p] = stem;
        }
      });
    }
    for (const [doc, slot] of slots) {
      const at = slot * count;
      let match = matches.get(doc);
      if (!match) {
        const words = new Map<number, string>();
        match = { score: 0, words, parts: count === 1 ? NO_PARTS : passes.map(() => ({ score: 0, words, parts: NO_PARTS })) };
        matches.set(doc, match);
      }
      match.score += values[at];
      match.words.set(i, terms[at]);
      for (let p = 1; p < count; p++) {
        const part = match.parts[p - 1];
        part.score += values[at + p];
        if (part.words !== match.words) part.words.set(i, terms[at + p]);
        else if (terms[at + p] !== terms[at]) part.words = new Map(match.words).set(i, terms[at + p]);
      }
    }
  });
  return matches;
}

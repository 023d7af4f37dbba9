/**
 * Ranked search over the tools behind dispatch (issue 17): BM25F over fields weighted by what they are
 * (the tool's own name, title, description, parameter names and descriptions), on Porter stems, with
 * related words (hand-made, and WordNet's for words the tools never use) and stem prefixes at a lower weight, server names matched only as whole words, and a nudge
 * from the request's intent (read / write / delete) against the tool's annotations. A request for things
 * in the plural favours the `list_*` tool of that name, and a name word in the other number than the request's counts against a tool; a tool that calls itself deprecated ranks lower, and a
 * description's sentence saying when not to use the tool is not indexed. A tool's score grows
 * with the share of the request's words it answers and of its own name's words the request reached;
 * question words ("what", "which") tell the intent but match nothing. Each hit says which words matched. The index is rebuilt only when the tools it was built from change.
 * A learned re-ranker (search-rerank.ts) can put the top 20 in order again; it is off unless asked:
 * it lifts held-out MRR from 0.703 to 0.730 but takes a search over 1,000 tools from ~1 to ~4 ms (p50).
 */
import { intentFactor, queryIntent, toolKind, type Intent } from './search-intent.js';
import { loadWordnetTable } from './search-related.js';
import { DEFAULT_WEIGHTS, type SearchWeights } from './search-weights.js';
import { queryWords } from './search-query.js';
import { RERANK_TOP, rerankHits, rounded, type Ablation } from './search-rerank.js';
import { FIELD_COUNT, fieldTexts, type SearchableTool, type ToolHit } from './search-fields.js';
import { isQuestionWord, normalizeTerm, proseTerms, relatedStems, stems, toolTerms } from './search-terms.js';
import { compareText } from '../../../shared/plain-text.js';

export { toolTerms } from './search-terms.js';
export type { SearchableTool, ToolHit } from './search-fields.js';

/** Fields of prose (title, description, parameter descriptions), split without breaking `GitHub` apart. */
const PROSE_FIELDS = new Set([1, 2, 4]);
/** A prefix match needs stems this long, the shorter at least this share of the longer. */
const MIN_PREFIX = 4;
const MIN_PREFIX_SHARE = 0.6;

/** A tool that calls itself deprecated ranks below its replacement, which usually matches the same words. */
const DEPRECATED_TEXT = /\bdeprecated\b/i;

/** Whether a request's word is a plural noun: `requests`, `entries`, not `status` or `class`. */
function isPlural(word: string): boolean {
  const lower = word.toLowerCase();
  if (lower.length < 4 || !lower.endsWith('s') || /(ss|us|is)$/.test(lower)) return false;
  return normalizeTerm(lower.slice(0, -1)) === normalizeTerm(lower) || lower.endsWith('ies');
}

/**
 * The factor for a `list_*` tool when a plural word of the request reached its name as itself ("show open
 * pull requests" wants `list_pull_requests`): "columns" reaching `list_tables` through a related word says
 * nothing about wanting the list.
 */
function pluralFactor(
  doc: Doc,
  match: Match,
  plural: ReadonlySet<number>,
  intent: Intent | undefined,
  exact: ReadonlySet<string>,
  w: SearchWeights,
): number {
  if (!doc.lister || intent === 'write' || intent === 'delete') return 1;
  for (const [i, term] of match.words) if (plural.has(i) && doc.nameStems.has(term) && exact.has(term)) return w.pluralList;
  return 1;
}

/**
 * A word the request and a tool's name share, but in another number, counts against the tool: a request
 * about one file (`config.yaml`, "the README") wants `read_text_file` over `read_multiple_files`, one about
 * tags `list_tags` over `get_tag`. Only for a word some tool names in each number (with `create_entities` the
 * only tool of entities, "a new entity" is no mismatch), and not when the request counts things some other
 * way ("every file").
 */
const QUANTIFIER = /^(every|each|all)$/;

/** A word in the singular, lower case: `entities` → `entity`, `file` → `file`. */
function singular(word: string): string {
  const lower = word.toLowerCase();
  if (!isPlural(lower)) return lower;
  return lower.endsWith('ies') ? `${lower.slice(0, -3)}y` : lower.slice(0, -1);
}

/** The factor for the words of a tool's name that the request has in the other number. */
function numberFactor(doc: Doc, match: Match, spoken: string[], counted: boolean, both: ReadonlySet<string>, w: SearchWeights): number {
  if (counted) return 1;
  let factor = 1;
  for (const [i, term] of match.words) {
    const name = doc.nameNumbers.get(term);
    if (!name || !both.has(name.singular)) continue;
    if (singular(spoken[i]) === name.singular && isPlural(spoken[i]) !== name.plural) factor *= w.numberMismatch;
  }
  return factor;
}

/** A request is read up to this length: a long one costs a vocabulary scan per word, on the main thread. */
const MAX_QUERY_CHARS = 1000;

/** The share of a tool's own name words the request reached. */
function nameCoverage(doc: Doc, match: Match): number {
  if (doc.nameStems.size === 0) return 0;
  const seen: string[] = [];
  for (const term of match.words.values()) if (doc.nameStems.has(term) && !seen.includes(term)) seen.push(term);
  return seen.length / doc.nameStems.size;
}

interface Posting {
  doc: number;
  tf: number[];
}

interface Doc {
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

interface Index {
  docs: Doc[];
  postings: Map<string, Posting[]>;
  /** Stems, for prefix matches. */
  vocabulary: string[];
  /** The first tool word seen for each stem, to say what matched. */
  surface: Map<string, string>;
  averages: number[];
  /** How many tools each server-name stem covers. */
  serverDocs: Map<string, number>;
  /** Name words (in the singular) that some tool names in the singular and another in the plural. */
  bothNumbers: Set<string>;
}

function buildIndex(tools: SearchableTool[]): Index {
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
  return { docs, postings, vocabulary: [...postings.keys()], surface, averages, serverDocs, bothNumbers };
}

function idf(n: number, total: number): number {
  return Math.log(1 + (total - n + 0.5) / (n + 0.5));
}

/** The index stems one query stem reaches, each with its weight (the stem itself 1). */
function variants(stem: string, index: Index, w: SearchWeights): Map<string, number> {
  const out = new Map<string, number>();
  if (index.postings.has(stem)) out.set(stem, 1);
  // WordNet only for a word the tools never use: for one they use, its general synonyms are mostly noise.
  for (const [related, weight] of relatedStems(stem, !index.postings.has(stem), w.related))
    if (index.postings.has(related) && !out.has(related)) out.set(related, weight);
  if (stem.length >= MIN_PREFIX) {
    for (const term of index.vocabulary) {
      if (out.get(term) === 1 || term.length < MIN_PREFIX) continue;
      const [short, long] = term.length < stem.length ? [term, stem] : [stem, term];
      if (long.startsWith(short) && short.length >= MIN_PREFIX_SHARE * long.length)
        out.set(term, Math.max(out.get(term) ?? 0, long.length - short.length === 1 ? w.nearForm : w.prefix));
    }
  }
  return out;
}

interface Match {
  score: number;
  /** Per query word: the index stem that matched it best. */
  words: Map<number, string>;
}

/** The index stems a query stem reaches, with their weights (`variants`, kept for one search). */
type Reach = (stem: string) => Map<string, number>;

/** Scores every tool that matches at least one query word. */
function score(index: Index, queryStems: string[], skip: ReadonlySet<string>, w: SearchWeights, reach: Reach): Map<number, Match> {
  const total = index.docs.length;
  const matches = new Map<number, Match>();
  const unique = [...new Set(queryStems)];
  unique.forEach((stem, i) => {
    if (skip.has(stem)) return;
    const best = new Map<number, { value: number; term: string }>();
    for (const [term, weight] of reach(stem)) {
      const list = index.postings.get(term) ?? [];
      const termIdf = idf(list.length, total);
      for (const { doc, tf } of list) {
        const lengths = index.docs[doc].lengths;
        let weighted = 0;
        for (let f = 0; f < w.fields.length; f++) {
          if (tf[f] === 0) continue;
          const { weight: fieldWeight, b } = w.fields[f];
          weighted += (fieldWeight * tf[f]) / (1 - b + (b * lengths[f]) / index.averages[f]);
        }
        const value = (weight * termIdf * weighted) / (w.k1 + weighted);
        const previous = best.get(doc);
        if (!previous || value > previous.value) best.set(doc, { value, term });
      }
    }
    // A server's name counts only as a whole word ("files" does not reach "filesystem").
    const serverCount = index.serverDocs.get(stem);
    if (serverCount) {
      const value = w.server * idf(serverCount, total) * (1 / (w.k1 + 1));
      index.docs.forEach((d, doc) => {
        if (!d.serverStems.has(stem)) return;
        const previous = best.get(doc);
        best.set(doc, { value: (previous?.value ?? 0) + value, term: previous?.term ?? stem });
      });
    }
    for (const [doc, { value, term }] of best) {
      const match = matches.get(doc) ?? { score: 0, words: new Map<number, string>() };
      match.score += value;
      match.words.set(i, term);
      matches.set(doc, match);
    }
  });
  return matches;
}

function fingerprint(tools: SearchableTool[], ids: WeakMap<object, number>, next: () => number): string {
  const idOf = (o: object | undefined) => {
    if (!o) return 0;
    let id = ids.get(o);
    if (id === undefined) ids.set(o, (id = next()));
    return id;
  };
  return tools
    .map(
      (t) =>
        `${t.name}\u0000${t.server}\u0000${t.original ?? ''}\u0000${t.title ?? ''}\u0000${t.description ?? ''}\u0000${idOf(t.inputSchema)}\u0000${idOf(t.annotations)}`,
    )
    .join('\u0001');
}

export class ToolSearch {
  /** Reads what search looks words up in (half a megabyte) without blocking; call before the first search. */
  static prepare(): Promise<void> {
    return loadWordnetTable();
  }

  readonly #weights: SearchWeights;
  #index: Index | undefined;
  #built = '';
  readonly #ids = new WeakMap<object, number>();
  #nextId = 0;
  readonly #rerank: boolean;

  /** `weights` replace the defaults (the bench and tests measure a change); `rerank: true` adds the learned re-ranker (the bench). */
  constructor(weights: SearchWeights = DEFAULT_WEIGHTS, options: { rerank?: boolean } = {}) {
    this.#weights = weights;
    this.#rerank = options.rerank ?? false;
  }

  /** The best matches first, at most `limit`, each with the words that matched. */
  search(tools: SearchableTool[], query: string, limit = 10): ToolHit[] {
    const index = this.#indexFor(tools);
    const words = queryWords(query.slice(0, MAX_QUERY_CHARS), (stem) => index.postings.has(stem) || index.serverDocs.has(stem)).filter(
      (w) => normalizeTerm(w) !== null,
    );
    const queryStems = words.map((w) => normalizeTerm(w) as string);
    if (queryStems.length === 0) return [];
    const unique = [...new Set(queryStems)];
    const spoken = unique.map((stem) => words[queryStems.indexOf(stem)].toLowerCase());
    // A past form after the first word describes a thing ("the modified paths", "stored people"), not the request.
    const intent = queryIntent(queryStems.filter((_, k) => k === 0 || !/ed$/i.test(words[k])));
    // Question words tell the intent only; a request of nothing else still searches with them.
    const questions = new Set(queryStems.filter((_, k) => isQuestionWord(words[k])));
    const asked = questions.size < unique.length ? questions : new Set<string>();
    const plural = new Set(spoken.flatMap((word, i) => (isPlural(word) ? [i] : [])));
    const exact = new Set(unique);
    const counted = spoken.some((w) => QUANTIFIER.test(w));
    const reached = new Map<string, Map<string, number>>();
    const reach: Reach = (stem) => reached.get(stem) ?? reached.set(stem, variants(stem, index, this.#weights)).get(stem)!;
    const valueOf = (doc: number, match: Match, w: SearchWeights) =>
      match.score *
      intentFactor(intent, index.docs[doc].kind, w.intent) *
      (match.words.size / Math.max(1, unique.length - asked.size)) ** w.coverage *
      (1 + w.nameCoverage * nameCoverage(index.docs[doc], match)) *
      (index.docs[doc].deprecated ? w.deprecated : 1) *
      pluralFactor(index.docs[doc], match, plural, intent, exact, w) *
      numberFactor(index.docs[doc], match, spoken, counted, index.bothNumbers, w);
    const rank = (w: SearchWeights, by: Reach) =>
      [...score(index, queryStems, asked, w, by)].map(([doc, match]) => ({ doc, match, raw: valueOf(doc, match, w) }));
    const all = rank(this.#weights, reach);
    const hits = [...all]
      .sort((a, b) => b.raw - a.raw || compareText(index.docs[a.doc].tool.name, index.docs[b.doc].tool.name))
      .slice(0, Math.max(0, this.#rerank ? Math.max(limit, RERANK_TOP) : limit))
      .map(({ doc, match, raw }) => {
        const tool = index.docs[doc].tool;
        const matched = [...match.words].map(([i, term]) => {
          const said = spoken[i];
          const toolWord = index.surface.get(term) ?? term;
          return term === unique[i] || toolWord === said ? said : `${said}≈${toolWord}`;
        });
        return {
          name: tool.name,
          server: tool.server,
          score: rounded(raw),
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          matched,
          tool,
        };
      });
    // Ablations the re-ranker reads: fields or exact words only score again; no intent weighs the same matches again.
    const exactReach: Reach = (stem) => new Map([...reach(stem)].map(([term, weight]) => [term, weight === 1 ? 1 : 0]));
    const named = ({ weights, leaves }: Ablation) =>
      (leaves === 'intent'
        ? all.map(({ doc, match }) => ({ doc, raw: valueOf(doc, match, weights) }))
        : rank(weights, leaves === 'related' ? exactReach : reach)
      ).map(({ doc, raw }) => [index.docs[doc].tool.name, raw] as const);
    const ordered = this.#rerank && hits.length > 1 ? rerankHits(query, hits, index.serverDocs.keys(), this.#weights, named) : hits;
    return ordered.slice(0, Math.max(0, limit)).map(({ tool: _tool, ...hit }) => hit);
  }

  #indexFor(tools: SearchableTool[]): Index {
    const print = fingerprint(tools, this.#ids, () => ++this.#nextId);
    if (this.#index && print === this.#built) return this.#index;
    this.#index = buildIndex(tools.slice());
    this.#built = print;
    return this.#index;
  }
}

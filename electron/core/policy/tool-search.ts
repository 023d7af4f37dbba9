/**
 * Ranked search over the tools behind dispatch (issue 17): BM25F over fields weighted by what they are
 * (the tool's own name, title, description, parameter names and descriptions), on Porter stems, with
 * related words (hand-made, and WordNet's for words the tools never use) and stem prefixes at a lower weight, server names matched only as whole words, and a nudge
 * from the request's intent (read / write / delete) against the tool's annotations. A request for things
 * in the plural favours the `list_*` tool of that name, and a name word in the other number than the request's counts against a tool; a tool that calls itself deprecated ranks lower, and a
 * description's sentence saying when not to use the tool is not indexed. A tool's score grows
 * with the share of the request's words it answers and of its own name's words the request reached;
 * question words ("what", "which") tell the intent but match nothing. Each hit says which words matched. The index is rebuilt only when what it reads of the tools changes (checked value by value, no string built).
 * A learned re-ranker (search-rerank.ts) can put the top 20 in order again (dispatch asks for it): it
 * lifts held-out MRR from 0.703 to 0.730. The ranker's scores with parts left out that it reads are scored
 * in the ranker's own pass (search-score.ts), so it adds ~0.6 ms to a search over 1,000 tools (was ~1.5 ms).
 */
import { intentFactor, queryIntent, type Intent } from './search-intent.js';
import { loadWordnetTable } from './search-related.js';
import { DEFAULT_WEIGHTS, type SearchWeights } from './search-weights.js';
import { queryWords } from './search-query.js';
import { ablatedParts, ablations, RERANK_TOP, rerankFeatures, rerankHits, rounded } from './search-rerank.js';
import type { SearchableTool, ToolHit } from './search-fields.js';
import { isQuestionWord, normalizeTerm } from './search-terms.js';
import { buildIndex, isPlural, score, singular, variants, type Doc, type Index, type Match, type Pass, type Reach } from './search-score.js';
import { compareText } from '../../../shared/plain-text.js';

export { toolTerms } from './search-terms.js';
export type { SearchableTool, ToolHit } from './search-fields.js';

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

/** A request is read up to this length: a long one costs vocabulary look-ups per word, on the main thread. */
const MAX_QUERY_CHARS = 1000;

/** The share of a tool's own name words the request reached. */
function nameCoverage(doc: Doc, match: Match): number {
  if (doc.nameStems.size === 0) return 0;
  const seen: string[] = [];
  for (const term of match.words.values()) if (doc.nameStems.has(term) && !seen.includes(term)) seen.push(term);
  return seen.length / doc.nameStems.size;
}

/** The ranker's hits for one search, and what the re-ranker reads besides. */
interface Ranked {
  hits: (ToolHit & { tool: SearchableTool })[];
  serverStems: Iterable<string>;
  /** Every matching tool's name, and its score under each of the re-ranker's ablations (only with `rerank`). */
  ablated?: () => { names: string[]; scores: number[][] };
}

/** How many factors a tool's score has after its own and the intent's (`restOf`). */
const REST = 5;

/**
 * The re-ranker's ablations in order, each with its scoring pass (`part`, none for the one that leaves out
 * intent) and whether its factors after the intent's are the ranker's (`sameRest`), and those passes.
 */
interface Ablations {
  all: (Pass & { part: number | undefined; sameRest: boolean })[];
  passes: Pass[];
}

/** How many of a tool's values `readValues` keeps. */
const READ = 7;

/**
 * What the index reads of each tool, `READ` values a tool: its strings, and its schema and annotations as
 * the objects they are (a catalog change replaces them, it never edits them in place).
 */
function readValues(tools: SearchableTool[]): unknown[] {
  return tools.flatMap((t) => [t.name, t.server, t.original, t.title, t.description, t.inputSchema, t.annotations]);
}

/**
 * Whether the tools read now what `read` kept: value by value, no string built. Dispatch hands over a new
 * array of new objects each search, so the objects' identity says nothing; their values do. `undefined` and
 * `''` differ (a title of `''` hides the annotations' title; an `original` of `''` empties the name field).
 */
function sameValues(tools: SearchableTool[], read: unknown[]): boolean {
  if (read.length !== tools.length * READ) return false;
  for (let i = 0, at = 0; i < tools.length; i++, at += READ) {
    const t = tools[i];
    if (
      t.name !== read[at] ||
      t.server !== read[at + 1] ||
      t.original !== read[at + 2] ||
      t.title !== read[at + 3] ||
      t.description !== read[at + 4] ||
      t.inputSchema !== read[at + 5] ||
      t.annotations !== read[at + 6]
    )
      return false;
  }
  return true;
}

export class ToolSearch {
  /** Reads what search looks words up in (half a megabyte) without blocking; call before the first search. */
  static prepare(): Promise<void> {
    return loadWordnetTable();
  }

  readonly #weights: SearchWeights;
  #index: Index | undefined;
  /** What the index was built from (`readValues`). */
  #built: unknown[] = [];
  readonly #rerank: boolean;
  /** The re-ranker's ablations and the scoring passes they need, worked out when first asked for. */
  #ablations: Ablations | undefined;

  /** `weights` replace the defaults (the bench and tests measure a change); `rerank: true` adds the learned re-ranker (dispatch's search). */
  constructor(weights: SearchWeights = DEFAULT_WEIGHTS, options: { rerank?: boolean } = {}) {
    this.#weights = weights;
    this.#rerank = options.rerank ?? false;
  }

  /** The best matches first, at most `limit`, each with the words that matched. */
  search(tools: SearchableTool[], query: string, limit = 10): ToolHit[] {
    const ranked = this.#ranked(tools, query, limit, this.#rerank);
    if (!ranked) return [];
    const ordered = this.#rerank && ranked.hits.length > 1 ? rerankHits(ranked.hits, this.#features(query, ranked)) : ranked.hits;
    return ordered.slice(0, Math.max(0, limit)).map(({ tool: _tool, ...hit }) => hit);
  }

  /** The re-ranker's features of the ranker's top hits, as a search with `rerank` reads them (for tests). */
  features(tools: SearchableTool[], query: string, limit = 10): { name: string; features: number[] }[] {
    const ranked = this.#ranked(tools, query, limit, true);
    if (!ranked) return [];
    const features = this.#features(query, ranked);
    return features.map((x, k) => ({ name: ranked.hits[k].name, features: x }));
  }

  #features(query: string, { hits, serverStems, ablated }: Ranked): number[][] {
    const head = hits.slice(0, RERANK_TOP);
    const { names, scores } = ablated?.() ?? { names: [], scores: [] };
    const parts = ablatedParts(new Set(head.map((h) => h.name)), names, scores);
    return rerankFeatures(
      query,
      head.map((hit) => ({ hit, tool: hit.tool })),
      serverStems,
      parts,
    );
  }

  /**
   * The ranker's hits, best first (with `rerank`, at least the re-ranker's top), and with `rerank` every
   * matching tool's score under each of the re-ranker's ablations, scored in the same pass as the hits.
   */
  #ranked(tools: SearchableTool[], query: string, limit: number, rerank: boolean): Ranked | undefined {
    const index = this.#indexFor(tools);
    const words = queryWords(query.slice(0, MAX_QUERY_CHARS), (stem) => index.postings.has(stem) || index.serverDocs.has(stem)).filter(
      (w) => normalizeTerm(w) !== null,
    );
    const queryStems = words.map((w) => normalizeTerm(w) as string);
    if (queryStems.length === 0) return undefined;
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
    // A tool's factors after its score and the intent's (words covered, name words reached, deprecated,
    // plural, number), kept at `at` in `into`: one array for every match, no object each.
    const restOf = (doc: number, match: Match, w: SearchWeights, into: Float64Array, at: number) => {
      into[at] = (match.words.size / Math.max(1, unique.length - asked.size)) ** w.coverage;
      into[at + 1] = 1 + w.nameCoverage * nameCoverage(index.docs[doc], match);
      into[at + 2] = index.docs[doc].deprecated ? w.deprecated : 1;
      into[at + 3] = pluralFactor(index.docs[doc], match, plural, intent, exact, w);
      into[at + 4] = numberFactor(index.docs[doc], match, spoken, counted, index.bothNumbers, w);
      return into;
    };
    // Always multiplied in this order: an ablation's equal factors give it the very same value.
    const valueOf = (doc: number, score: number, w: SearchWeights, rest: Float64Array, at: number) =>
      score * intentFactor(intent, index.docs[doc].kind, w.intent) * rest[at] * rest[at + 1] * rest[at + 2] * rest[at + 3] * rest[at + 4];
    const ablation = rerank ? this.#ablationsOf() : undefined;
    const matches = score(index, queryStems, asked, this.#weights, reach, ablation?.passes);
    const rests = new Float64Array(matches.size * REST);
    const all = [...matches].map(([doc, match], j) => ({
      doc,
      match,
      raw: valueOf(doc, match.score, this.#weights, restOf(doc, match, this.#weights, rests, j * REST), j * REST),
    }));
    const hits = [...all]
      .sort((a, b) => b.raw - a.raw || compareText(index.docs[a.doc].tool.name, index.docs[b.doc].tool.name))
      .slice(0, Math.max(0, rerank ? Math.max(limit, RERANK_TOP) : limit))
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
    if (!ablation) return { hits, serverStems: index.serverDocs.keys() };
    // Ablations the re-ranker reads: fields or exact words only were scored in the same pass (each match's
    // parts); no intent weighs the main matches again. Factors are worked out again only where they can differ.
    const ablated = () => {
      const own = new Float64Array(REST);
      return {
        names: all.map(({ doc }) => index.docs[doc].tool.name),
        scores: ablation.all.map(({ weights, part, sameRest }) =>
          all.map(({ doc, match }, j) => {
            const m = part === undefined ? match : match.parts[part];
            return sameRest && m.words === match.words
              ? valueOf(doc, m.score, weights, rests, j * REST)
              : valueOf(doc, m.score, weights, restOf(doc, m, weights, own, 0), 0);
          }),
        ),
      };
    };
    return { hits, serverStems: index.serverDocs.keys(), ablated };
  }

  #ablationsOf(): Ablations {
    if (!this.#ablations) {
      const w = this.#weights;
      let passes = 0;
      const all = ablations(w).map(({ weights, leaves }) => ({
        weights,
        exact: leaves === 'related',
        part: leaves === 'intent' ? undefined : passes++,
        sameRest: (['coverage', 'nameCoverage', 'deprecated', 'pluralList', 'numberMismatch'] as const).every((k) => weights[k] === w[k]),
      }));
      this.#ablations = { all, passes: all.filter((a) => a.part !== undefined) };
    }
    return this.#ablations;
  }

  #indexFor(tools: SearchableTool[]): Index {
    if (this.#index && sameValues(tools, this.#built)) return this.#index;
    this.#index = buildIndex(tools.slice());
    this.#built = readValues(tools);
    return this.#index;
  }
}

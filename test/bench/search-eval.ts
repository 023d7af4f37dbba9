/**
 * The tool-search evaluation (issue 17): real servers' tools and a golden set of queries with graded labels
 * (test/fixtures/search/), scored as recall@1/5/10, MRR and nDCG@10 for the tuned and held-out parts.
 * Shared by the bench part (search-bench.ts) and the floor test (test/unit/tool-search-eval.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SearchableTool } from '../../electron/core/policy/tool-search.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/search');

interface FixtureServer {
  id: string;
  source: string;
  tools: Tool[];
}

export interface GoldenQuery {
  id: number;
  split: 'tune' | 'heldout';
  /** The later held-out batches: 2 and 3 (session 7), 4 to 6 (session 8); absent for the rest. */
  batch?: 2 | 3 | 4 | 5 | 6;
  query: string;
  /** Exposed tool name → grade: 2 the right tool, 1 an acceptable one. */
  relevant: Record<string, number>;
}

export interface Metrics {
  queries: number;
  recall1: number;
  recall5: number;
  recall10: number;
  mrr: number;
  ndcg10: number;
  /** Queries with no right tool in the top 5. */
  misses: { query: string; top: string[] }[];
}

/** Tools as the catalog hands them to dispatch: `<server>__<tool>`, the upstream's title and schema. */
export function toSearchable(server: string, tool: Tool, exposedServer = server): SearchableTool {
  return {
    name: `${exposedServer}__${tool.name}`,
    server: exposedServer,
    original: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}

export function loadServers(): FixtureServer[] {
  return (JSON.parse(readFileSync(join(FIXTURES, 'tools.json'), 'utf8')) as { servers: FixtureServer[] }).servers;
}

export function loadTools(): SearchableTool[] {
  return loadServers().flatMap((s) => s.tools.map((t) => toSearchable(s.id, t)));
}

export function loadQueries(): GoldenQuery[] {
  return (JSON.parse(readFileSync(join(FIXTURES, 'queries.json'), 'utf8')) as { queries: GoldenQuery[] }).queries;
}

/** At least `count` tools: the real ones replicated under other server names (`github2`, `memory3`, ...). */
export function synthesizeTools(count: number): SearchableTool[] {
  const servers = loadServers();
  const tools: SearchableTool[] = [];
  for (let copy = 1; tools.length < count; copy++) {
    for (const s of servers) for (const t of s.tools) tools.push(toSearchable(s.id, t, copy === 1 ? s.id : `${s.id}${copy}`));
  }
  return tools.slice(0, count);
}

function dcg(grades: number[]): number {
  return grades.reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
}

/** Scores a ranker (query → names, best first) on the queries. "Right" means the highest grade given. */
export function evaluate(rank: (query: string) => string[], queries: GoldenQuery[]): Metrics {
  let r1 = 0;
  let r5 = 0;
  let r10 = 0;
  let mrr = 0;
  let ndcg = 0;
  const misses: Metrics['misses'] = [];
  for (const q of queries) {
    const ranked = rank(q.query).slice(0, 10);
    const best = Math.max(...Object.values(q.relevant));
    const first = ranked.findIndex((name) => q.relevant[name] === best);
    if (first === 0) r1++;
    if (first >= 0 && first < 5) r5++;
    else misses.push({ query: q.query, top: ranked.slice(0, 5) });
    if (first >= 0) {
      r10++;
      mrr += 1 / (first + 1);
    }
    const ideal = dcg(
      Object.values(q.relevant)
        .sort((a, b) => b - a)
        .slice(0, 10),
    );
    ndcg += dcg(ranked.map((name) => q.relevant[name] ?? 0)) / ideal;
  }
  const n = queries.length || 1;
  return { queries: queries.length, recall1: r1 / n, recall5: r5 / n, recall10: r10 / n, mrr: mrr / n, ndcg10: ndcg / n, misses };
}

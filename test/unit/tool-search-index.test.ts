/**
 * When tool search builds its index again, and how it finds stem prefixes (issue 17): a search that keeps
 * its index must answer as a fresh one would, whether the tools come as a new array of new objects (as
 * dispatch hands them over), as the same array edited in place, or with a field gone from `undefined` to
 * `''`; and the prefix look-up over the sorted vocabulary reaches the very stems, weights and order that a
 * scan of the whole vocabulary reached.
 */
import { describe, expect, it } from 'vitest';
import { buildIndex, variants, type Index } from '../../electron/core/policy/search-score.js';
import { relatedStems } from '../../electron/core/policy/search-terms.js';
import { DEFAULT_WEIGHTS, type SearchWeights } from '../../electron/core/policy/search-weights.js';
import { ToolSearch, type SearchableTool } from '../../electron/core/policy/tool-search.js';
import { loadTools } from '../bench/search-eval.js';

const schema = { type: 'object', properties: {} };

function forecastTool(): SearchableTool {
  return { name: 'wx__get', server: 'wx', original: 'get', description: 'Lists open files', inputSchema: schema };
}

/** What a search that has never searched before answers. */
const fresh = (tools: SearchableTool[], query: string) => new ToolSearch().search(tools, query);

describe('tool search index rebuilds', () => {
  it('a new array of new objects with the same values answers the same', () => {
    const search = new ToolSearch();
    const tools = loadTools();
    const first = search.search(tools, 'read a file');
    expect(first.length).toBeGreaterThan(0);
    expect(
      search.search(
        tools.map((t) => ({ ...t })),
        'read a file',
      ),
    ).toEqual(first);
  });

  it('the same array with a tool edited in place, one added, and annotations replaced is searched as it now is', () => {
    const search = new ToolSearch();
    const tools = [forecastTool()];
    expect(search.search(tools, 'weather forecast')).toEqual([]);
    // The same object, one field changed.
    tools[0].description = 'Weather forecast for a city';
    expect(search.search(tools, 'weather forecast').map((h) => h.name)).toEqual(['wx__get']);
    // The same array, one tool more.
    tools.push({ name: 'wx__alerts', server: 'wx', description: 'Storm alerts for a region', inputSchema: schema });
    expect(search.search(tools, 'storm alerts').map((h) => h.name)).toEqual(['wx__alerts']);
    // The same object, new annotations: the title they carry is indexed.
    tools[1].annotations = { title: 'Hurricane warnings' };
    expect(search.search(tools, 'hurricane')).toEqual(fresh(tools, 'hurricane'));
    expect(search.search(tools, 'hurricane').map((h) => h.name)).toEqual(['wx__alerts']);
  });

  it.each<[string, SearchableTool, Partial<SearchableTool>, string]>([
    // A title of '' hides the annotations' title; the name field is `original` when given, even ''.
    ['title', { ...forecastTool(), annotations: { title: 'Weather forecast' } }, { title: '' }, 'weather forecast'],
    ['original', { ...forecastTool(), name: 'wx__forecast', original: undefined }, { original: '' }, 'forecast'],
    ['description', { ...forecastTool(), name: 'wx__forecast', original: undefined, description: undefined }, { description: '' }, 'forecast'],
  ])('%s going from undefined to "" is a change', (_field, before, change, query) => {
    const search = new ToolSearch();
    expect(search.search([before], query)).toEqual(fresh([before], query));
    expect(search.search([before], query).length).toBe(1);
    const after = { ...before, ...change };
    expect(fresh([after], query)).not.toEqual(fresh([before], query));
    expect(search.search([after], query)).toEqual(fresh([after], query));
  });
});

/** `variants` as it was: a scan of the whole vocabulary for each stem. */
function scanned(stem: string, index: Index, w: SearchWeights): Map<string, number> {
  const out = new Map<string, number>();
  if (index.postings.has(stem)) out.set(stem, 1);
  for (const [related, weight] of relatedStems(stem, !index.postings.has(stem), w.related))
    if (index.postings.has(related) && !out.has(related)) out.set(related, weight);
  if (stem.length >= 4) {
    for (const term of index.vocabulary) {
      if (out.get(term) === 1 || term.length < 4) continue;
      const [short, long] = term.length < stem.length ? [term, stem] : [stem, term];
      if (long.startsWith(short) && short.length >= 0.6 * long.length)
        out.set(term, Math.max(out.get(term) ?? 0, long.length - short.length === 1 ? w.nearForm : w.prefix));
    }
  }
  return out;
}

describe('stem prefixes', () => {
  it('reach the same stems, with the same weights, in the same order as a scan of the vocabulary', () => {
    const index = buildIndex(loadTools());
    // Every stem of the tools, and longer and shorter forms of each: both directions of a prefix match.
    const stems = [...new Set(index.vocabulary.flatMap((t) => [t, `${t}s`, `${t}ing`, t.slice(0, -1), t.slice(0, -2), t.slice(0, -3)]))];
    let reached = 0;
    for (const stem of stems) {
      const got = [...variants(stem, index, DEFAULT_WEIGHTS)];
      expect(got, stem).toEqual([...scanned(stem, index, DEFAULT_WEIGHTS)]);
      if (got.some(([term]) => term !== stem)) reached++;
    }
    // Not a vacuous comparison: most stems reach some other stem.
    expect(reached).toBeGreaterThan(stems.length / 4);
  });
});

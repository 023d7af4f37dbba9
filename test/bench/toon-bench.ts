/**
 * TOON for tabular results (issue 18): tokens of typical tool results as JSON (pretty, as many servers
 * send it, and compact) against TOON, as ratios, with what `auto` picks; and the time TOON adds to a
 * 1 MB tabular result (the encoding decision as the call path makes it: parse, look, encode + check the
 * round trip, count both). Runs the built core (dist/), like the spill bench.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ProcessGroup } from './bench-processes.js';
import { builtTokenCounter } from './built-core.js';
import { median, ms, ratio } from './measure.js';
import { ROOT } from './relays.js';
import type { Report } from './report.js';
import { pick, seededRandom } from '../support/seeded-random.js';

type EncodingModule = typeof import('../../electron/core/encoding/toon-encoding.js');

const ROUNDS_1MB = Number(process.env.BENCH_TOON_ROUNDS ?? 5);

const WORDS = 'fix crash when loading config cache token spill server client timeout retry parser update docs test window'.split(' ');
const words = (next: () => number, n: number) => Array.from({ length: n }, () => pick(next, WORDS)).join(' ');
const day = (next: () => number) => new Date(Date.UTC(2025, 0, 1) + Math.floor(next() * 300 * 86_400_000)).toISOString();

/** GitHub's list-issues shape (REST v3, the fields a GitHub MCP server passes on), 50 issues. */
function issueList(): unknown {
  const next = seededRandom(1);
  return Array.from({ length: 50 }, (_, i) => {
    const login = `dev${Math.floor(next() * 40)}`;
    return {
      number: 4200 - i,
      title: words(next, 6),
      state: next() < 0.7 ? 'open' : 'closed',
      user: { login, id: 1000 + login.length, type: 'User' },
      labels: next() < 0.5 ? [] : [{ name: pick(next, ['bug', 'enhancement', 'docs']), color: 'd73a4a' }],
      comments: Math.floor(next() * 30),
      created_at: day(next),
      updated_at: day(next),
      html_url: `https://github.com/acme/widgets/issues/${4200 - i}`,
      body: `${words(next, 18)}.`,
    };
  });
}

/** Rows of a SQL query (a database MCP server's `query`), 200 rows. */
function databaseRows(): unknown {
  const next = seededRandom(2);
  return {
    rowCount: 200,
    rows: Array.from({ length: 200 }, (_, i) => ({
      id: i + 1,
      email: `user${i}@example.com`,
      name: `${pick(next, ['Ada', 'Grace', 'Alan', 'Linus', 'Barbara'])} ${pick(next, ['Lovelace', 'Hopper', 'Turing', 'Liskov'])}`,
      country: pick(next, ['DE', 'US', 'FR', 'JP', 'BR']),
      active: next() < 0.8,
      balance: Math.round(next() * 1e6) / 100,
      created_at: day(next),
    })),
  };
}

/** A directory listing with sizes (a filesystem server's `list_directory_with_sizes`, as JSON), 300 entries. */
function directoryListing(): unknown {
  const next = seededRandom(3);
  return {
    path: '/home/ada/projects/widgets/src',
    entries: Array.from({ length: 300 }, (_, i) => {
      const dir = next() < 0.15;
      return {
        name: dir ? `module-${i}` : `${pick(next, ['index', 'util', 'parser', 'view', 'store'])}-${i}.${pick(next, ['ts', 'js', 'json', 'md'])}`,
        type: dir ? 'directory' : 'file',
        size: dir ? 4096 : Math.floor(next() * 200_000),
        modified: day(next),
      };
    }),
  };
}

/** A code search result (GitHub's search/code shape, trimmed as servers return it), 40 matches. */
function searchResult(): unknown {
  const next = seededRandom(4);
  return {
    total_count: 1234,
    incomplete_results: false,
    items: Array.from({ length: 40 }, (_, i) => ({
      name: `${pick(next, ['spill', 'token', 'policy'])}-${i}.ts`,
      path: `electron/core/${pick(next, ['spill', 'tokens', 'policy'])}/${i}.ts`,
      repository: `acme/${pick(next, ['widgets', 'gadgets'])}`,
      score: Math.round(next() * 1000) / 100,
      fragment: `${words(next, 10)}(${i});`,
    })),
  };
}

/** Not tabular: a nested configuration, which stays JSON. */
function nestedConfig(): unknown {
  return { server: { port: 8080, tls: { cert: '/etc/cert.pem', key: '/etc/key.pem' } }, features: { spill: true, toon: 'auto' }, limits: [1, 2, 3] };
}

export async function toonBench(_g: ProcessGroup, _tmp: string, report: Report): Promise<void> {
  const encoding = (await import(pathToFileURL(join(ROOT, 'dist/electron/core/encoding/toon-encoding.js')).href)) as EncodingModule;
  const TokenCounter = await builtTokenCounter();
  const counter = new TokenCounter();
  try {
    const rows: string[][] = [];
    const cases: [string, unknown][] = [
      ['GitHub issue list (50, nested user/labels)', issueList()],
      ['database rows (200)', databaseRows()],
      ['directory listing with sizes (300)', directoryListing()],
      ['code search result (40)', searchResult()],
      ['nested config (not tabular)', nestedConfig()],
    ];
    for (const [name, value] of cases) {
      const pretty = JSON.stringify(value, null, 2);
      const compact = JSON.stringify(value);
      const toon = encoding.toToon(value);
      const [p, c, t] = await Promise.all([counter.count(pretty), counter.count(compact), toon === undefined ? NaN : counter.count(toon)]);
      const auto = await encoding.encodeValue(value, 'auto', counter, pretty);
      rows.push([
        name,
        String(p),
        String(c),
        Number.isNaN(t) ? '—' : String(t),
        Number.isNaN(t) ? '—' : ratio(t / p),
        Number.isNaN(t) ? '—' : ratio(t / c),
        auto.encoding === 'toon' ? `TOON (−${Math.round((encoding.tokensSaved(auto) / auto.jsonTokens) * 100)}%)` : 'JSON',
      ]);
    }
    report.table(
      'TOON vs JSON tokens (o200k_base; issue 18)',
      ['result', 'JSON pretty', 'JSON compact', 'TOON', 'TOON / pretty', 'TOON / compact', 'auto shows'],
      rows,
      ['`auto` compares against the JSON as the server sent it (here: pretty) and needs at least 15% fewer tokens.'],
    );
    await oneMegabyte(encoding, counter, report);
  } finally {
    await counter.close();
  }
}

/** The time TOON adds to a 1 MB tabular result: each step of the decision, medians over rounds. */
async function oneMegabyte(
  encoding: EncodingModule,
  counter: InstanceType<Awaited<ReturnType<typeof builtTokenCounter>>>,
  report: Report,
): Promise<void> {
  const next = seededRandom(5);
  const rows: unknown[] = [];
  const big = { rows };
  let text = '';
  while (text.length < 1_000_000) {
    for (let i = 0; i < 500; i++) {
      rows.push({
        id: rows.length + 1,
        email: `user${rows.length}@example.com`,
        country: pick(next, ['DE', 'US', 'FR']),
        active: next() < 0.8,
        balance: Math.round(next() * 1e6) / 100,
        created_at: day(next),
      });
    }
    text = JSON.stringify(big, null, 2);
  }
  await counter.quickCount(text); // load the tokenizer outside the timing
  const steps = {
    parse: [] as number[],
    look: [] as number[],
    encode: [] as number[],
    roundTrip: [] as number[],
    count: [] as number[],
    total: [] as number[],
  };
  let saved = 0;
  for (let r = 0; r < ROUNDS_1MB; r++) {
    const t0 = performance.now();
    encoding.mayBeTabularJson(text);
    const value = JSON.parse(text) as unknown;
    const t1 = performance.now();
    encoding.isTabular(value);
    const t2 = performance.now();
    const { encode, decode } = await import('@toon-format/toon');
    const toon = encode(value);
    const t3 = performance.now();
    decode(toon);
    const t4 = performance.now();
    await Promise.all([counter.quickCount(text), counter.quickCount(toon)]);
    const t5 = performance.now();
    const whole = await encoding.encodeValue(value, 'auto', counter, text);
    const t6 = performance.now();
    saved = encoding.tokensSaved(whole) / whole.jsonTokens;
    steps.parse.push(t1 - t0);
    steps.look.push(t2 - t1);
    steps.encode.push(t3 - t2);
    steps.roundTrip.push(t4 - t3);
    steps.count.push(t5 - t4);
    steps.total.push(t6 - t5 + (t1 - t0));
  }
  const mb = (Buffer.byteLength(text) / 1e6).toFixed(2);
  report.table(
    `TOON time for a ${mb} MB tabular result (${rows.length} rows, pretty JSON; medians of ${ROUNDS_1MB})`,
    ['step', 'ms'],
    [
      ['JSON.parse (the call path parses only text that looks tabular)', ms(median(steps.parse), 1)],
      ['uniform-array check', ms(median(steps.look), 2)],
      ['TOON encode', ms(median(steps.encode), 1)],
      ['decode check (exact round trip)', ms(median(steps.roundTrip), 1)],
      ['token counts, JSON and TOON (quickCount)', ms(median(steps.count), 1)],
      ['encodeValue in all + parse (what TOON adds to the call)', ms(median(steps.total), 1)],
    ],
    [`auto: TOON, ${Math.round(saved * 100)}% fewer tokens than the JSON.`],
  );
}

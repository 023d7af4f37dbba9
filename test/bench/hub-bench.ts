/**
 * `npm run bench` (hub part): latency and throughput of a trivial tool call (a) directly over stdio,
 * (b) directly over Streamable HTTP, (c) through the hub over HTTP; startup to a listening endpoint;
 * then spilling: decision time for 1/10/50 MB, end-to-end time and bytes through the hub vs directly,
 * and the hub's peak memory. Everything in one run, as ratios against the direct connections.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { NODE, ROOT, fixture } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';
import { StdioUpstreamTransport } from '../../electron/core/upstream/stdio-transport.js';

const FIXTURE = fixture('fixture-server.mjs');
const BIN = join(ROOT, 'electron/cli/spillway.js');
const N = Number(process.env.BENCH_CALLS ?? 1000);

export interface Stats {
  p50: number;
  p99: number;
  perSecond: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Runs `n` calls with `inFlight` concurrent workers; returns per-call latency stats (ms). */
export async function measure(call: () => Promise<unknown>, n: number, inFlight: number): Promise<Stats> {
  for (let i = 0; i < 50; i++) await call(); // warm-up
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n) {
        next++;
        const t = performance.now();
        await call();
        times.push(performance.now() - t);
      }
    }),
  );
  const total = performance.now() - started;
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), perSecond: (n / total) * 1000 };
}

const fmt = (n: number, d = 3) => n.toFixed(d);

export function table(title: string, rows: [string, Stats][], baseline: Stats): void {
  console.log(`\n${title}`);
  console.log('| path | p50 ms | p99 ms | calls/s | p50 ratio |');
  console.log('|---|---|---|---|---|');
  for (const [name, s] of rows) {
    console.log(`| ${name} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(s.perSecond, 0)} | ${fmt(s.p50 / baseline.p50, 2)}x |`);
  }
}

async function stdioClient(): Promise<Client> {
  const c = new Client({ name: 'bench', version: '1' });
  await c.connect(new StdioClientTransport({ command: NODE, args: [FIXTURE] }));
  return c;
}

async function httpClient(url: string, token?: string): Promise<Client> {
  const c = new Client({ name: 'bench', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : undefined));
  return c;
}

const call = (c: Client, name: string, args: Record<string, unknown> = {}) =>
  c.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, { timeout: 600_000 });

async function startHub(dir: string): Promise<{ hub: Started; url: string; token: string; startupMs: number }> {
  await writeFile(join(dir, 'config.json'), JSON.stringify({ mcpServers: { fx: { command: NODE, args: [FIXTURE], prefix: false } } }));
  const t = performance.now();
  const hub = await spawnUntil(NODE, [BIN, 'serve', '--data-dir', dir, '--port', '0'], /Spillway listening on (\S+)/);
  const startupMs = performance.now() - t;
  const token = (await readFile(join(dir, 'token'), 'utf8')).trim();
  return { hub, url: hub.match[1], token, startupMs };
}

async function statusMiB(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) / 1024;
}

/** Linux: restarts the process's peak-RSS count (VmHWM) from its current RSS; false where unsupported. */
async function resetPeakRss(pid: number): Promise<boolean> {
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export async function hubBench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-bench-'));
  const direct = await stdioClient();
  const web = await spawnUntil(NODE, [FIXTURE, '--http', '--port', '0'], /listening on (\S+)/);
  const httpDirect = await httpClient(web.match[1]);

  // Startup: process start to the listening line, and to an answered initialize.
  const { hub, url, token, startupMs } = await startHub(dir);
  const tInit = performance.now();
  const viaHub = await httpClient(url, token);
  const initMs = performance.now() - tInit;
  while ((await viaHub.listTools()).tools.every((t) => t.name !== 'noop')) await new Promise((r) => setTimeout(r, 20));

  console.log(`\nStartup: process start to "listening" ${fmt(startupMs, 0)} ms; initialize answered ${fmt(initMs, 1)} ms later (upstreams start in the background).`);
  for (const inFlight of [1, 8]) {
    const a = await measure(() => call(direct, 'noop'), N, inFlight);
    const b = await measure(() => call(httpDirect, 'noop'), N, inFlight);
    const c = await measure(() => call(viaHub, 'noop'), N, inFlight);
    table(`Trivial call, ${N} calls, ${inFlight} in flight`, [['(a) direct stdio', a], ['(b) direct Streamable HTTP', b], ['(c) through the hub (HTTP)', c]], a);
    console.log(`hub over HTTP vs direct HTTP: p50 ${fmt(c.p50 / b.p50, 2)}x, throughput ${fmt(b.perSecond / c.perSecond, 2)}x`);
  }

  // Spilling: decision time flat in the payload; end-to-end vs a direct stdio call.
  const counter = new TokenCounter();
  console.log('\nSpill decision (10,000-token threshold): early-exit count, ms');
  console.log('| payload | decision ms | full count ms |');
  console.log('|---|---|---|');
  const line = 'The quick brown fox jumps over the lazy dog. 0123456789 lorem ipsum dolor sit amet.\n';
  for (const mb of [1, 10, 50]) {
    const text = line.repeat(Math.ceil((mb * 1e6) / line.length));
    await counter.isWithin(text.slice(0, 1000), 10); // load the encoder outside the timing
    const t = performance.now();
    await counter.isWithin(text, 10_000);
    const decision = performance.now() - t;
    let full = NaN;
    if (mb <= 10) {
      const t2 = performance.now();
      await counter.count(text);
      full = performance.now() - t2;
    }
    console.log(`| ${mb} MB | ${fmt(decision, 1)} | ${Number.isNaN(full) ? 'skipped' : fmt(full, 0)} |`);
  }
  await counter.close();

  console.log('\nA big result end to end: a direct stdio call (the SDK client as clients use it, and our linear transport) vs through the hub (spilled)');
  console.log('| payload | direct SDK stdio ms | direct linear stdio ms | hub ms | hub / SDK direct | bytes direct | bytes via hub |');
  console.log('|---|---|---|---|---|---|---|');
  const sdk = await stdioClient();
  const big = new Client({ name: 'bench', version: '1' });
  await big.connect(new StdioUpstreamTransport({ command: NODE, args: [FIXTURE], baseEnv: process.env, platform: process.platform }));
  let memory = '';
  for (const mb of [1, 10, 50]) {
    const bytes = mb * 1e6;
    const runs = mb >= 50 ? 2 : 4;
    const pid = hub.child.pid!;
    const rssBefore = await statusMiB(pid, 'VmRSS');
    const reset = mb === 50 && (await resetPeakRss(pid));
    let directMs = Infinity;
    let sdkMs = Infinity;
    let hubMs = Infinity;
    let directBytes = 0;
    let hubBytes = 0;
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      if (mb <= 10 && sdkMs !== -1) {
        try {
          await call(sdk, 'big', { bytes });
          sdkMs = Math.min(sdkMs, performance.now() - t);
        } catch {
          sdkMs = -1; // the SDK's reader drops messages over 10 MiB
        }
      }
      t = performance.now();
      const r1 = await call(big, 'big', { bytes });
      directMs = Math.min(directMs, performance.now() - t);
      directBytes = JSON.stringify(r1).length;
      t = performance.now();
      const r2 = await call(viaHub, 'big', { bytes: bytes + i }); // distinct payloads: no dedup shortcut
      hubMs = Math.min(hubMs, performance.now() - t);
      hubBytes = JSON.stringify(r2).length;
    }
    const sdkCell = mb > 10 || sdkMs < 0 ? 'fails (>10 MiB)' : fmt(sdkMs, 0);
    const ratio = mb > 10 || sdkMs < 0 ? '—' : `${fmt(hubMs / sdkMs, 2)}x`;
    console.log(`| ${mb} MB | ${sdkCell} | ${fmt(directMs, 0)} | ${fmt(hubMs, 0)} | ${ratio} | ${directBytes.toLocaleString('en')} | ${hubBytes.toLocaleString('en')} |`);
    if (mb === 50) {
      const peak = await statusMiB(pid, 'VmHWM');
      memory = reset
        ? `Hub memory while it handled the two 50 MB results: peak RSS ${fmt(peak, 0)} MiB, ${fmt(peak - rssBefore, 0)} MiB above its RSS just before (${fmt(rssBefore, 0)} MiB) — goal: under 3x the payload = 150 MiB.`
        : `Hub peak RSS over the whole run (this kernel cannot reset the peak): ${fmt(peak, 0)} MiB.`;
    }
  }
  console.log(memory);

  await Promise.all([direct.close(), httpDirect.close(), viaHub.close(), big.close(), sdk.close()]);
  await hub.stop();
  await web.stop();
  await rm(dir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await hubBench();
}


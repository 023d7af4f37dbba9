/**
 * A trivial call (server-everything `echo`), 1,000 sequential and 1,000 with 8 in flight, all from one SDK
 * Client over stdio:
 *   direct stdio            → server-everything
 *   byte pipe               → a process piping bytes → server-everything (the floor of any extra hop)
 *   two byte pipes          → two such processes in a row (the floor of bridge + hub, before any MCP work)
 *   hub over stdio          → `spillway serve --stdio` → server-everything (the hub's own cost, no bridge)
 *   byte pipe → hub socket  → a process piping bytes to the hub's socket → hub → server-everything
 *   bridge (socket)         → `spillway bridge` → socket → hub (`spillway serve`) → server-everything
 *   bridge (HTTP fallback)  the same bridge forced onto Streamable HTTP
 * Prints p50/p99 per call, calls/s and the ratios against direct (issue 6 goal: bridge p50 ≤ 2x); the
 * "byte pipe → hub socket" row is what the bridge itself can be held to.
 * Run: `npx tsc -p electron/tsconfig.build.json && node --import tsx test/bench/bridge-bench.ts [calls]`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = process.execPath;
const BIN = join(ROOT, 'electron/cli/spillway.js');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const CALLS = Number(process.argv[2]) || 1000;
const WARMUP = 500;
const ROUNDS = 5;
const IN_FLIGHT = 8;

interface Row {
  mode: string;
  load: string;
  p50: number;
  p99: number;
  perSecond: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

type Call = () => Promise<number>;

function caller(client: Client, tool: string): Call {
  return async () => {
    const t = performance.now();
    await client.request({ method: 'tools/call', params: { name: tool, arguments: { message: 'ping' } } }, CallToolResultSchema);
    return performance.now() - t;
  };
}

/** Runs `count` calls with `concurrency` in flight; returns each call's time and the wall time. */
async function batch(call: Call, count: number, concurrency: number): Promise<{ times: number[]; elapsed: number }> {
  const times: number[] = [];
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) times.push(await call());
    }),
  );
  return { times, elapsed: performance.now() - began };
}

/**
 * Every mode is measured in ROUNDS slices, interleaved, so JIT warm-up, the hub's own warm-up and machine
 * noise fall on all modes alike instead of favouring whichever runs last.
 */
async function measureAll(modes: { mode: string; call: Call }[]): Promise<Row[]> {
  for (const m of modes) await batch(m.call, WARMUP, 1);
  const rows: Row[] = [];
  for (const concurrency of [1, IN_FLIGHT]) {
    const acc = new Map(modes.map((m) => [m.mode, { times: [] as number[], elapsed: 0 }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const m of modes) {
        const r = await batch(m.call, Math.ceil(CALLS / ROUNDS), concurrency);
        acc.get(m.mode)!.times.push(...r.times);
        acc.get(m.mode)!.elapsed += r.elapsed;
      }
    }
    for (const m of modes) {
      const { times, elapsed } = acc.get(m.mode)!;
      times.sort((a, b) => a - b);
      rows.push({
        mode: m.mode,
        load: concurrency === 1 ? 'sequential' : `${concurrency} in flight`,
        p50: percentile(times, 50),
        p99: percentile(times, 99),
        perSecond: (times.length / elapsed) * 1000,
      });
    }
  }
  return rows;
}

async function stdioClient(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  return client;
}

async function untilListed(client: Client, name: string): Promise<void> {
  const changed = () => new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  for (;;) {
    const waiting = changed();
    if ((await client.listTools()).tools.some((t) => t.name === name)) return;
    await waiting;
  }
}

/** `spillway serve` as a child; resolves with its URL once it listens. */
async function startHub(dataDir: string) {
  const child = spawn(NODE, [BIN, 'serve', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /Spillway listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr.resume();
    child.once('exit', (code) => reject(new Error(`spillway serve exited (${code}): ${out}`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** A process that relays its stdin/stdout to a child command, byte for byte. */
const PIPE_TO_CHILD = `const c = require('node:child_process').spawn(process.argv[1], process.argv.slice(2), { stdio: ['pipe', 'pipe', 'ignore'] });
process.stdin.pipe(c.stdin); c.stdout.pipe(process.stdout); process.stdin.on('end', () => c.kill());`;
/** A process that does the socket handshake, then relays its stdin/stdout to the hub socket byte for byte. */
const PIPE_TO_SOCKET = `const s = require('node:net').createConnection(process.argv[1]);
s.write(JSON.stringify({ token: require('node:fs').readFileSync(process.argv[2], 'utf8').trim() }) + '\\n');
s.once('data', (ok) => { process.stdin.pipe(s); s.pipe(process.stdout); });
process.stdin.on('end', () => s.destroy());`;

async function dataDirWithEverything(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-bench-'));
  await writeFile(
    join(dir, 'config.json'),
    JSON.stringify({ version: 1, servers: { everything: { type: 'stdio', command: NODE, args: [EVERYTHING, 'stdio'] } }, settings: { port: 0 } }),
  );
  return dir;
}

async function main(): Promise<void> {
  const dataDir = await dataDirWithEverything();
  const stdioDir = await dataDirWithEverything();
  const hub = await startHub(dataDir);
  const clients: Client[] = [];
  let rows: Row[];
  const open = async (mode: string, command: string, args: string[], tool: string) => {
    const client = await stdioClient(command, args);
    clients.push(client);
    if (tool !== 'echo') await untilListed(client, tool);
    return { mode, call: caller(client, tool) };
  };
  try {
    const noSocket = join(dataDir, 'no.sock');
    rows = await measureAll([
      await open('direct stdio', NODE, [EVERYTHING, 'stdio'], 'echo'),
      await open('byte pipe', NODE, ['-e', PIPE_TO_CHILD, NODE, EVERYTHING, 'stdio'], 'echo'),
      // Bridge and hub are two processes between client and server: this is the floor of that shape.
      await open('two byte pipes', NODE, ['-e', PIPE_TO_CHILD, NODE, '-e', PIPE_TO_CHILD, NODE, EVERYTHING, 'stdio'], 'echo'),
      await open('hub over stdio', NODE, [BIN, 'serve', '--stdio', '--data-dir', stdioDir, '--port', '0'], 'everything__echo'),
      await open('byte pipe → hub socket', NODE, ['-e', PIPE_TO_SOCKET, join(dataDir, 'spillway.sock'), join(dataDir, 'token')], 'everything__echo'),
      await open('bridge (socket)', NODE, [BIN, 'bridge', '--data-dir', dataDir, '--no-start'], 'everything__echo'),
      await open('bridge (HTTP fallback)', NODE, [BIN, 'bridge', '--data-dir', dataDir, '--no-start', '--socket', noSocket, '--url', hub.url], 'everything__echo'),
    ]);
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await hub.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(stdioDir, { recursive: true, force: true });
  }
  print(rows);
}

function print(rows: Row[]): void {
  const by = (mode: string) => new Map(rows.filter((r) => r.mode === mode).map((r) => [r.load, r]));
  const direct = by('direct stdio');
  const floor = by('byte pipe → hub socket');
  const header = ['mode', 'load', 'p50 ms', 'p99 ms', 'calls/s', 'p50 vs direct', 'calls/s vs direct', 'p50 vs byte pipe → hub'];
  const lines = rows.map((r) => {
    const d = direct.get(r.load)!;
    const f = floor.get(r.load);
    const overFloor = r.mode.startsWith('bridge') && f ? `${(r.p50 / f.p50).toFixed(2)}x` : '';
    return [r.mode, r.load, r.p50.toFixed(3), r.p99.toFixed(3), r.perSecond.toFixed(0), `${(r.p50 / d.p50).toFixed(2)}x`, `${(r.perSecond / d.perSecond).toFixed(2)}x`, overFloor];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(`\nbridge bench: server-everything echo, ${CALLS} calls per row in ${ROUNDS} interleaved rounds (after ${WARMUP} warm-up calls each), node ${process.version}, ${availableParallelism()} CPUs\n`);
  console.log(fmt(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const l of lines) console.log(fmt(l));
}

export { main as bridgeBench };

if (import.meta.url === `file://${process.argv[1]}`) await main();

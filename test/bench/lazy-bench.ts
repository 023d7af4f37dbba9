/**
 * Lazy start rows (issue 18): the resident memory of the hub and all its children with ten stdio servers
 * configured, (a) all started with the hub, (b) on first use (their lists kept from a first run), after
 * start and after one call to one server, against a hub with no server at all; and the first call of a
 * server on first use against a call of a warm one. Each reading BENCH_SETTLE_MS after the event.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { statusMB, type ProcessGroup } from './bench-processes.js';
import { median, ms, ratio } from './measure.js';
import { FIXTURE, NODE, httpClient, startSpillway, untilListed, type SpillwayHub } from './relays.js';
import type { Report } from './report.js';

const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 15_000);
const SERVERS = 10;
const WARM_CALLS = 50;
const GOAL = 1.1;

const servers = (startMode?: string) =>
  Object.fromEntries(
    Array.from({ length: SERVERS }, (_, i) => [
      `s${i}`,
      { type: 'stdio', command: NODE, args: [FIXTURE, '--name', `s${i}`], ...(startMode ? { startMode } : {}) },
    ]),
  );

/** The pid and every descendant's (Linux: /proc/<pid>/task/<tid>/children). */
async function tree(pid: number): Promise<number[]> {
  let children: number[];
  try {
    children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return [pid, ...(await Promise.all(children.map(tree))).flat()];
}

/** RSS of the hub and all its children, MB, and how many processes that is. */
async function treeMB(pid: number): Promise<{ mb: number; processes: number }> {
  await wait(SETTLE_MS);
  const pids = await tree(pid);
  const each = await Promise.all(pids.map((p) => statusMB(p, 'VmRSS').catch(() => 0)));
  return { mb: each.reduce((a, b) => a + b, 0), processes: pids.length };
}

async function listedAll(client: Client): Promise<void> {
  for (let i = 0; i < SERVERS; i++) await untilListed(client, `s${i}__noop`);
}

async function timed(client: Client, name: string): Promise<number> {
  const t = performance.now();
  const result = await client.callTool({ name, arguments: {} });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return performance.now() - t;
}

async function hubWith(g: ProcessGroup, dir: string, config: Record<string, unknown>): Promise<{ hub: SpillwayHub; client: Client }> {
  const hub = await startSpillway(g, dir, config);
  return { hub, client: await httpClient(g, hub.url, hub.token) };
}

export async function lazyBench(g: ProcessGroup, tmp: string, report: Report): Promise<void> {
  const alone = await hubWith(g, join(tmp, 'lazy-alone'), {});
  await alone.client.listTools();
  const hubAlone = await treeMB(alone.hub.pid);
  await alone.hub.started.stop();

  const always = await hubWith(g, join(tmp, 'lazy-always'), servers('always'));
  await listedAll(always.client);
  const allOn = await treeMB(always.hub.pid);
  const warm = [];
  for (let i = 0; i < WARM_CALLS; i++) warm.push(await timed(always.client, 's0__noop'));
  await always.hub.started.stop();

  // A first run keeps the lists; the second starts the servers on first use.
  const dir = join(tmp, 'lazy-on-first-use');
  const first = await hubWith(g, dir, servers());
  await listedAll(first.client);
  await first.hub.started.stop();
  const lazy = await hubWith(g, dir, servers());
  await listedAll(lazy.client);
  const afterStart = await treeMB(lazy.hub.pid);
  const firstCall = await timed(lazy.client, 's0__noop');
  const afterCall = await treeMB(lazy.hub.pid);
  await lazy.hub.started.stop();

  const mb = (n: number) => n.toFixed(0);
  const row = (what: string, m: { mb: number; processes: number }) => [what, mb(m.mb), String(m.processes), ratio(m.mb / hubAlone.mb)];
  const settle = `${(SETTLE_MS / 1000).toFixed(0)} s`;
  report.table(
    `Lazy start: the hub and all its children with ${SERVERS} stdio servers (RSS, MB = 10^6 bytes, ${settle} after each step)`,
    ['what', 'MB', 'processes', 'vs the hub alone'],
    [
      row('the hub alone (no server configured)', hubAlone),
      row('(a) every server started with the hub', allOn),
      row('(b) on first use, after start and a tools/list', afterStart),
      row('(b) on first use, after one call to one server', afterCall),
    ],
  );
  const warmMs = median(warm);
  report.table(
    'Lazy start: a call of a server on first use',
    ['what', 'ms', 'vs a warm call'],
    [
      ['its first call (starts the server)', ms(firstCall, 1), ratio(firstCall / warmMs)],
      [`a call of a warm server (median of ${WARM_CALLS})`, ms(warmMs, 2), '1.00x'],
    ],
  );
  report.goal(
    `Lazy start: ${SERVERS} servers on first use, after start, within ${Math.round((GOAL - 1) * 100)}% of the hub alone`,
    `${mb(afterStart.mb)} MB vs ${mb(hubAlone.mb)} MB (${ratio(afterStart.mb / hubAlone.mb)})`,
    afterStart.mb <= hubAlone.mb * GOAL,
    18,
  );
}

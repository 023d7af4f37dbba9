/**
 * Memory rows: the resident memory of a fresh `spillway serve` process (VmRSS / VmHWM from
 * /proc/<pid>/status, Linux), each read BENCH_SETTLE_MS (15 s) after the event: idle (after start and a
 * tools/list), after a 1 MB and after a 10 MB spilled result, and its peak from the 10 MB call on, against
 * the upstream server's own peak on the same result. Also the hub's startup. Figures in MB (10^6 bytes).
 */
import { join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { resetPeak, statusMB, type ProcessGroup } from './bench-processes.js';
import { ms, ratio } from './measure.js';
import { FIXTURE, NODE, httpClient, startSpillway, stdioClient, stdioPid, untilListed } from './relays.js';
import type { Report } from './report.js';

const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 15_000);
const LIMITS = { idle: 100, after: 175, peakOverServer: 60 };
const settle = `${(SETTLE_MS / 1000).toFixed(0)} s`;

/** Calls the fixture's `big` tool; returns the length of the text the client got. */
async function big(client: Client, bytes: number): Promise<number> {
  const result = await client.request({ method: 'tools/call', params: { name: 'big', arguments: { bytes } } }, CallToolResultSchema, {
    timeout: 600_000,
  });
  return result.content.reduce((n, c) => n + (c.type === 'text' ? c.text.length : 0), 0);
}

export async function memoryBench(g: ProcessGroup, tmp: string, report: Report): Promise<void> {
  // The baseline for startup: the server itself, spawned and initialized over stdio.
  let t = performance.now();
  const direct = await stdioClient(g, NODE, [FIXTURE]);
  const directStartMs = performance.now() - t;

  const hub = await startSpillway(g, join(tmp, 'memory-hub'));
  t = performance.now();
  const client = await httpClient(g, hub.url, hub.token);
  const initMs = performance.now() - t;
  await untilListed(client, 'noop');
  // Idle means at rest: read after the same wait as the other readings, not amid startup's garbage.
  await wait(SETTLE_MS);
  const idle = await statusMB(hub.pid, 'VmRSS');

  const delivered1 = await big(client, 1_000_000);
  await wait(SETTLE_MS);
  const after1 = await statusMB(hub.pid, 'VmRSS');
  const canReset = await resetPeak(hub.pid);
  const delivered10 = await big(client, 10_000_001); // not the 1 MB text cut longer: no shortcut by content
  await wait(SETTLE_MS);
  const after10 = await statusMB(hub.pid, 'VmRSS');
  // Read after the wait: the peak includes whatever the result set off after it was answered (counting, the ledger).
  const peak = await statusMB(hub.pid, 'VmHWM');

  // The server's own peak on the same 10 MB result, called directly (its peak reset the same way).
  const serverPid = stdioPid(direct);
  await big(direct, 1000);
  await resetPeak(serverPid);
  await big(direct, 10_000_001);
  const serverPeak = await statusMB(serverPid, 'VmHWM');

  const mb = (n: number) => n.toFixed(0);
  const vsServer = (n: number) => ratio(n / serverPeak);
  report.table(
    'Memory: the Spillway hub process (RSS, MB = 10^6 bytes)',
    ['what', 'MB', 'vs the server’s own peak', 'goal'],
    [
      [`hub idle (${settle} after start and a tools/list)`, mb(idle), vsServer(idle), `≤ ${LIMITS.idle}`],
      [`hub ${settle} after a 1 MB spilled result`, mb(after1), vsServer(after1), `≤ ${LIMITS.after}`],
      [`hub ${settle} after a 1 MB and a 10 MB spilled result`, mb(after10), vsServer(after10), `≤ ${LIMITS.after}`],
      [
        `hub peak from the 10 MB call to ${settle} after it${canReset ? '' : ' (peak of the whole run: this kernel cannot reset it)'}`,
        mb(peak),
        vsServer(peak),
        `≤ server peak + ${LIMITS.peakOverServer} = ${mb(serverPeak + LIMITS.peakOverServer)}`,
      ],
      ['the server’s own peak on the same 10 MB result (called directly)', mb(serverPeak), '1.00x', '—'],
    ],
    [
      `The client got ${delivered1.toLocaleString('en')} and ${delivered10.toLocaleString('en')} characters of text for the 1 MB and 10 MB results (spilled).`,
    ],
  );
  report.goal(`Memory: hub idle ≤ ${LIMITS.idle} MB`, `${mb(idle)} MB`, idle <= LIMITS.idle);
  report.goal(
    `Memory: hub ≤ ${LIMITS.after} MB ${settle} after a 1 MB and a 10 MB spilled result`,
    `${mb(after1)} MB after 1 MB, ${mb(after10)} MB after 10 MB`,
    Math.max(after1, after10) <= LIMITS.after,
  );
  report.goal(
    `Memory: hub peak on a 10 MB result ≤ the server's own peak + ${LIMITS.peakOverServer} MB`,
    `${mb(peak)} MB vs ${mb(serverPeak)} MB (+${mb(peak - serverPeak)})`,
    canReset && peak <= serverPeak + LIMITS.peakOverServer,
  );

  const total = hub.startupMs + initMs;
  report.table(
    'Startup',
    ['what', 'ms', 'vs the server alone'],
    [
      ['`spillway serve`: process start to "listening"', ms(hub.startupMs, 0), ratio(hub.startupMs / directStartMs)],
      ['… then `initialize` answered (upstreams start in the background)', ms(initMs, 1), ''],
      ['the fixture server alone: spawn and `initialize` over stdio', ms(directStartMs, 0), '1.00x'],
    ],
    [`Start to an answered initialize: ${ms(total, 0)} ms, ${ratio(total / directStartMs)} the server alone.`],
  );
}

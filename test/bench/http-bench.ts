/**
 * HTTP rows: a trivial tools/call (the fixture's `noop`) through the fixture's own SDK Streamable HTTP
 * server (the baseline), the peer relays as published on npm, and Spillway over HTTP — all relaying the
 * same stdio server, all on 127.0.0.1, measured in interleaved rounds in one run.
 */
import { join } from 'node:path';
import type { ProcessGroup } from './bench-processes.js';
import { CALLS, IN_FLIGHT, ROUNDS, measureModes, ms, ratio, toolCaller, type Mode, type ModeStats } from './measure.js';
import { directHttp, mcpHub, mcpProxy, spillwayClient, startSpillway, supergateway, type Relay } from './relays.js';
import type { Report } from './report.js';

const DIRECT = 'direct SDK Streamable HTTP server';
const SPILLWAY = '**Spillway over HTTP**';

export async function httpBench(g: ProcessGroup, tmp: string, report: Report): Promise<void> {
  const paths: [string, () => Promise<Relay>][] = [
    [DIRECT, () => directHttp(g)],
    ['supergateway 4.0.0 (SSE)', () => supergateway(g, 'sse')],
    ['supergateway 4.0.0 (Streamable HTTP, stateful)', () => supergateway(g, 'streamableHttp')],
    ['mcp-hub 4.2.1 (SSE)', () => mcpHub(g, join(tmp, 'mcp-hub'))],
    ['mcp-proxy 6.7.19 (Streamable HTTP)', () => mcpProxy(g)],
    [SPILLWAY, async () => spillwayClient(g, await startSpillway(g, join(tmp, 'http-hub')))],
  ];
  const modes: Mode[] = [];
  const skipped: string[] = [];
  for (const [name, open] of paths) {
    try {
      const relay = await open();
      const call = toolCaller(relay.client, relay.tool);
      await call(); // a path that connects but cannot call is reported, not measured
      modes.push({ name, call });
    } catch (err) {
      if (name === DIRECT || name === SPILLWAY) throw err;
      skipped.push(`${name}: did not run here (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
    }
  }
  const rows = await measureModes(modes);
  const direct = rows.find((r) => r.name === DIRECT)!;
  const ours = rows.find((r) => r.name === SPILLWAY)!;
  report.table(
    `HTTP: a trivial tools/call relayed to the same stdio server (${CALLS} calls per row and load, ${ROUNDS} interleaved rounds)`,
    ['path', 'p50 ms', 'p50 vs direct', 'p99 ms', `p50 ms, ${IN_FLIGHT} in flight`, `calls/s, ${IN_FLIGHT} in flight`, 'calls/s vs direct'],
    rows.map((r) => [
      r.name,
      ms(r.sequential.p50),
      ratio(r.sequential.p50 / direct.sequential.p50),
      ms(r.sequential.p99),
      ms(r.inFlight.p50),
      r.inFlight.perSecond.toFixed(0),
      ratio(r.inFlight.perSecond / direct.inFlight.perSecond),
    ]),
    skipped,
  );
  goals(report, rows, direct, ours);
}

function goals(report: Report, rows: ModeStats[], direct: ModeStats, ours: ModeStats): void {
  const p50Ratio = ours.sequential.p50 / direct.sequential.p50;
  report.goal(
    'HTTP: trivial call p50 ≤ 1.0x the direct SDK server',
    `${ratio(p50Ratio)} (${ms(ours.sequential.p50)} vs ${ms(direct.sequential.p50)} ms)`,
    p50Ratio <= 1,
  );
  const peers = rows.filter((r) => r !== direct && r !== ours);
  const fastest = peers.reduce<ModeStats | undefined>((best, r) => (!best || r.sequential.p50 < best.sequential.p50 ? r : best), undefined);
  if (fastest) {
    report.goal(
      'HTTP: p50 below every peer',
      `${ms(ours.sequential.p50)} ms vs fastest peer ${fastest.name} ${ms(fastest.sequential.p50)} ms`,
      ours.sequential.p50 < fastest.sequential.p50,
    );
  }
  const rate = ours.inFlight.perSecond / direct.inFlight.perSecond;
  report.goal(
    `HTTP: calls/s with ${IN_FLIGHT} in flight ≥ the direct SDK server's`,
    `${ours.inFlight.perSecond.toFixed(0)} vs ${direct.inFlight.perSecond.toFixed(0)} (${ratio(rate)})`,
    rate >= 1,
  );
}

/**
 * Bridge rows: a trivial call (the fixture's `noop`) from one SDK Client over stdio, sequential and with
 * 8 in flight, in interleaved rounds:
 *   direct stdio            → the server
 *   byte pipe               → a process piping bytes → the server (the floor of any extra hop)
 *   two byte pipes          → two such processes in a row (the floor of bridge + hub, before any MCP work)
 *   one-hop SDK proxy       → SDK Client + SDK Server in one process → the server (one-hop-proxy.ts)
 *   hub over stdio          → `spillway serve --stdio` → the server (the hub's own cost, no bridge)
 *   byte pipe → hub socket  → a process piping bytes to the hub's socket → hub → the server
 *   Spillway bridge         → `spillway bridge` → socket → hub (`spillway serve`) → the server
 *   bridge (HTTP fallback)  the same bridge forced onto Streamable HTTP
 * Goal (issue 12): the bridge's p50 no higher than the one-hop proxy's.
 */
import { join } from 'node:path';
import type { ProcessGroup } from './bench-processes.js';
import { CALLS, IN_FLIGHT, ROUNDS, measureModes, ms, ratio, toolCaller, type Mode } from './measure.js';
import { FIXTURE, NODE, SPILLWAY, ROOT, startSpillway, stdioClient, untilListed, writeHubConfig } from './relays.js';
import type { Report } from './report.js';

/** A process that relays its stdin/stdout to a child command, byte for byte. */
const PIPE_TO_CHILD = `const c = require('node:child_process').spawn(process.argv[1], process.argv.slice(2), { stdio: ['pipe', 'pipe', 'ignore'] });
process.stdin.pipe(c.stdin); c.stdout.pipe(process.stdout); process.stdin.on('end', () => c.kill());`;
/**
 * A process that does the socket handshake (core/downstream/socket-endpoint.ts: a nonce, the hub's proof,
 * not checked here, the token, ok), then relays its stdin/stdout to the hub socket byte for byte.
 */
const PIPE_TO_SOCKET = `const s = require('node:net').createConnection(process.argv[1]);
const token = require('node:fs').readFileSync(process.argv[2], 'utf8').trim();
s.write(JSON.stringify({ nonce: require('node:crypto').randomBytes(16).toString('hex'), client: 'byte-pipe' }) + '\\n');
let head = Buffer.alloc(0), lines = 0;
const onData = (d) => {
  head = Buffer.concat([head, d]);
  for (let nl; lines < 2 && (nl = head.indexOf(10)) !== -1; ) { head = head.subarray(nl + 1); if (++lines === 1) s.write(JSON.stringify({ token }) + '\\n'); }
  if (lines < 2) return;
  s.off('data', onData);
  if (head.length) process.stdout.write(head);
  process.stdin.pipe(s); s.pipe(process.stdout);
};
s.on('data', onData);
process.stdin.on('end', () => s.destroy());`;

const DIRECT = 'direct stdio';
const ONE_HOP = 'one-hop SDK proxy (SDK Client + Server)';
const BRIDGE = '**Spillway bridge** (client → bridge → hub → server)';

export async function bridgeBench(g: ProcessGroup, tmp: string, report: Report): Promise<void> {
  const hub = await startSpillway(g, join(tmp, 'bridge-hub'));
  const stdioDir = join(tmp, 'stdio-hub');
  await writeHubConfig(stdioDir);
  const open = async (name: string, command: string, args: string[], viaHub: boolean): Promise<Mode> => {
    const client = await stdioClient(g, command, args);
    if (viaHub) await untilListed(client, 'noop');
    return { name, call: toolCaller(client, 'noop') };
  };
  const server = [NODE, FIXTURE];
  const modes = [
    await open(DIRECT, NODE, [FIXTURE], false),
    await open('byte pipe', NODE, ['-e', PIPE_TO_CHILD, ...server], false),
    await open('two byte pipes', NODE, ['-e', PIPE_TO_CHILD, NODE, '-e', PIPE_TO_CHILD, ...server], false),
    await open(ONE_HOP, NODE, ['--import', 'tsx', join(ROOT, 'test/bench/one-hop-proxy.ts'), ...server], false),
    await open('hub over stdio (`spillway serve --stdio`)', NODE, [SPILLWAY, 'serve', '--stdio', '--data-dir', stdioDir, '--port', '0'], true),
    await open('byte pipe → hub socket', NODE, ['-e', PIPE_TO_SOCKET, join(hub.dataDir, 'spillway.sock'), join(hub.dataDir, 'token')], true),
    await open(BRIDGE, NODE, [SPILLWAY, 'bridge', '--data-dir', hub.dataDir, '--no-start'], true),
    await open(
      'bridge (HTTP fallback)',
      NODE,
      [SPILLWAY, 'bridge', '--data-dir', hub.dataDir, '--no-start', '--socket', join(tmp, 'no.sock'), '--url', hub.url],
      true,
    ),
  ];
  const rows = await measureModes(modes);
  const by = (name: string) => rows.find((r) => r.name === name)!;
  const direct = by(DIRECT);
  const oneHop = by(ONE_HOP);
  report.table(
    `Bridge (stdio clients): a trivial tools/call (${CALLS} calls per row and load, ${ROUNDS} interleaved rounds)`,
    [
      'path',
      'p50 ms',
      'p50 vs direct',
      'p50 vs one-hop proxy',
      'p99 ms',
      `p50 ms, ${IN_FLIGHT} in flight`,
      `calls/s, ${IN_FLIGHT} in flight`,
      'calls/s vs direct',
    ],
    rows.map((r) => [
      r.name,
      ms(r.sequential.p50),
      ratio(r.sequential.p50 / direct.sequential.p50),
      ratio(r.sequential.p50 / oneHop.sequential.p50),
      ms(r.sequential.p99),
      ms(r.inFlight.p50),
      r.inFlight.perSecond.toFixed(0),
      ratio(r.inFlight.perSecond / direct.inFlight.perSecond),
    ]),
    ['The byte-pipe rows are floors: processes that only copy bytes, no MCP work at all.'],
  );
  const bridge = by(BRIDGE);
  report.goal(
    'Bridge: p50 ≤ the one-hop SDK proxy’s',
    `${ms(bridge.sequential.p50)} vs ${ms(oneHop.sequential.p50)} ms (${ratio(bridge.sequential.p50 / oneHop.sequential.p50)}); ${IN_FLIGHT} in flight ${ratio(bridge.inFlight.p50 / oneHop.inFlight.p50)}`,
    bridge.sequential.p50 <= oneHop.sequential.p50,
  );
}

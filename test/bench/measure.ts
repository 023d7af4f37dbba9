/**
 * Timing for the bench: calls in batches with N in flight, every mode measured in interleaved rounds so
 * JIT warm-up, the hub's own warm-up and the noise of a shared machine fall on all modes alike.
 */
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** Size knobs, so a quick run (`BENCH_CALLS=200 npm run bench`) takes seconds instead of minutes. */
export const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
export const WARMUP = Number(process.env.BENCH_WARMUP ?? Math.min(300, CALLS));
export const IN_FLIGHT = 8;

/** One timed call; resolves with its duration in ms. */
export type Call = () => Promise<number>;

export interface Mode {
  name: string;
  call: Call;
}

export interface LoadStats {
  p50: number;
  p99: number;
  /** Median over the rounds of each round's calls per second. */
  perSecond: number;
}

export interface ModeStats {
  name: string;
  sequential: LoadStats;
  inFlight: LoadStats;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** A trivial tools/call on `client`, timed. */
export function toolCaller(client: Client, tool: string, args: Record<string, unknown> = {}): Call {
  return async () => {
    const t = performance.now();
    await client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CallToolResultSchema);
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

async function interleaved(modes: Mode[], concurrency: number): Promise<Map<string, LoadStats>> {
  const acc = new Map(modes.map((m) => [m.name, { times: [] as number[], rates: [] as number[] }]));
  const perRound = Math.max(1, Math.ceil(CALLS / ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order each round so no mode always follows the same neighbour.
    for (let i = 0; i < modes.length; i++) {
      const m = modes[(i + round) % modes.length];
      const r = await batch(m.call, perRound, concurrency);
      const a = acc.get(m.name)!;
      a.times.push(...r.times);
      a.rates.push((r.times.length / r.elapsed) * 1000);
    }
  }
  const out = new Map<string, LoadStats>();
  for (const [name, { times, rates }] of acc) {
    times.sort((a, b) => a - b);
    out.set(name, { p50: percentile(times, 50), p99: percentile(times, 99), perSecond: median(rates) });
  }
  return out;
}

/** Warms every mode up, then measures all of them sequentially and with IN_FLIGHT in flight. */
export async function measureModes(modes: Mode[]): Promise<ModeStats[]> {
  for (const m of modes) await batch(m.call, WARMUP, 1);
  const sequential = await interleaved(modes, 1);
  const inFlight = await interleaved(modes, IN_FLIGHT);
  return modes.map((m) => ({ name: m.name, sequential: sequential.get(m.name)!, inFlight: inFlight.get(m.name)! }));
}

export const ms = (n: number, digits = 3) => n.toFixed(digits);
export const ratio = (n: number) => `${n.toFixed(2)}x`;

/**
 * Turns the stderr lines of upstream servers into `upstream.stderr` events, at a bounded rate per server.
 * A server that floods its stderr (a debug logger left on) would otherwise make one event per line: the
 * event log's memory, its files and every live view grew without limit (audit s11, item 1). Lines past
 * the rate are counted, not kept, and reported as one event; the server's own stderr tail (stderr-tail.ts)
 * still holds its newest lines whatever the rate.
 */
import type { HubEventInput } from '../../../shared/events.js';
import { formatCount } from '../../../shared/plain-text.js';

/** Lines a server may send at once before the rate applies (a start-up banner, a stack trace). */
export const STDERR_BURST_LINES = 100;
/** Lines per second that become events while a server keeps writing. */
export const STDERR_LINES_PER_SECOND = 10;
/** How soon skipped lines are reported when no further line is let through. */
const REPORT_AFTER_MS = 1000;

export interface StderrEventsOptions {
  emit(event: HubEventInput): void;
  burstLines?: number;
  linesPerSecond?: number;
  now?: () => number;
}

interface ServerBucket {
  /** Lines that may still become events now (refilled at linesPerSecond, up to burstLines). */
  tokens: number;
  refilledAt: number;
  skipped: number;
  report: NodeJS.Timeout | undefined;
}

/** Per-server token bucket in front of the event log, for stderr lines. */
export class StderrEvents {
  readonly #emit: (event: HubEventInput) => void;
  readonly #burst: number;
  readonly #perSecond: number;
  readonly #now: () => number;
  readonly #servers = new Map<string, ServerBucket>();

  constructor(options: StderrEventsOptions) {
    this.#emit = options.emit;
    this.#burst = options.burstLines ?? STDERR_BURST_LINES;
    this.#perSecond = options.linesPerSecond ?? STDERR_LINES_PER_SECOND;
    this.#now = options.now ?? Date.now;
  }

  /** One line the server wrote: an event now, or counted as skipped. */
  line(server: string, line: string): void {
    const bucket = this.#bucket(server);
    if (bucket.tokens >= 1) {
      bucket.tokens--;
      // Skipped lines are reported where they were skipped, before the next line shown.
      this.#report(server, bucket);
      this.#emit({ type: 'upstream.stderr', level: 'debug', server, line });
      return;
    }
    bucket.skipped++;
    if (!bucket.report) {
      bucket.report = setTimeout(() => this.#report(server, bucket), REPORT_AFTER_MS);
      bucket.report.unref();
    }
  }

  /** Reports every count of skipped lines now (the hub is stopping). */
  flush(): void {
    for (const [server, bucket] of this.#servers) this.#report(server, bucket);
  }

  #bucket(server: string): ServerBucket {
    const now = this.#now();
    let bucket = this.#servers.get(server);
    if (!bucket) {
      bucket = { tokens: this.#burst, refilledAt: now, skipped: 0, report: undefined };
      this.#servers.set(server, bucket);
      return bucket;
    }
    const earned = ((now - bucket.refilledAt) / 1000) * this.#perSecond;
    if (earned > 0) {
      bucket.tokens = Math.min(this.#burst, bucket.tokens + earned);
      bucket.refilledAt = now;
    }
    return bucket;
  }

  #report(server: string, bucket: ServerBucket): void {
    clearTimeout(bucket.report);
    bucket.report = undefined;
    if (bucket.skipped === 0) return;
    const n = bucket.skipped;
    bucket.skipped = 0;
    this.#emit({ type: 'upstream.stderr', level: 'warn', server, line: skippedLine(n, this.#perSecond) });
  }
}

/** The line shown in place of the ones skipped, in plain words with the next step. */
export function skippedLine(count: number, perSecond: number): string {
  const lines = count === 1 ? '1 line' : `${formatCount(count)} lines`;
  return (
    `[Spillway] ${lines} of this server's error output not logged: it writes more than ${perSecond} lines a second. ` +
    `Its newest lines are in the server's details; if it keeps doing this, turn off its debug logging.`
  );
}

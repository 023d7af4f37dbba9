/**
 * One wording for a log row (shared/event-summary.ts): the Activity window writes it with its locale's
 * numbers (Intl), the hub's search of older events with numbers written by hand as en-US does (no ICU in
 * the hub). The hub's words are checked here, and its numbers against Intl's en-US ones, where Intl is at hand.
 */
import { describe, expect, it } from 'vitest';
import type { HubEvent, HubEventInput } from '../../shared/events.js';
import { plainCompact, plainDuration, plainNumbers, summarizeEvent, type SummaryNumbers } from '../../shared/event-summary.js';

/** The window's formatters (renderer/src/lib/format.ts) with its options, in en-US. */
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const intlNumbers: SummaryNumbers = {
  tokens: (n, estimated = false, short = false) => `${estimated ? '≈' : ''}${short ? compact.format(n) : whole.format(n)}`,
  duration: plainDuration,
  count: (n) => whole.format(n),
};

const call = { callId: 'c1', server: 'fx', tool: 'search', exposedName: 'fx__search', client: 'claude-code' };
const done = { type: 'call.finished', level: 'info', ...call, durationMs: 1234, isError: false, bytesUpstream: 52_000, bytesDelivered: 900 };
const counted = { type: 'call.counted', level: 'info', ...call, tokensEstimated: false };

/** Every kind of row, with the line the hub matches a search against. */
const ROWS: Array<[HubEventInput, string]> = [
  [{ type: 'call.started', level: 'info', ...call, argumentsPreview: '{}' }, 'fx__search called by claude-code…'],
  [{ type: 'call.started', level: 'info', ...call, client: undefined }, 'fx__search called…'],
  [{ ...done, action: 'spill', tokensUpstream: 12_345, tokensDelivered: 250 }, 'fx__search spilled in 1.2 s, 12.3K → 250 tokens'],
  [{ ...done, action: 'pass', durationMs: 12, tokensUpstream: 40, tokensDelivered: 40 }, 'fx__search passed in 12 ms, 40 tokens'],
  [
    { ...done, action: 'truncate', durationMs: 12_600, tokensUpstream: 1_250_000, tokensDelivered: 999, tokensEstimated: true },
    'fx__search truncated in 13 s, ≈1.3M → 999 tokens',
  ],
  [{ ...done, action: 'cache', durationMs: 3 }, 'fx__search answered from cache in 3 ms'],
  [
    { ...done, action: 'compress', durationMs: 999.6, tokensUpstream: 100_000, tokensDelivered: 2_000 },
    'fx__search compressed in 1000 ms, 100K → 2K tokens',
  ],
  [{ ...done, action: 'cancelled', durationMs: 40 }, 'fx__search cancelled by the client in 40 ms'],
  [{ ...done, action: 'error', isError: true, durationMs: 8, error: 'closed; reconnecting.' }, 'fx__search failed in 8 ms: closed; reconnecting.'],
  [{ ...counted, tokensUpstream: 12_345, tokensDelivered: 250 }, 'fx__search counted: 12,345 tokens produced, 250 delivered'],
  [
    { ...counted, tokensUpstream: 2_000_000, tokensDelivered: 1_000, tokensEstimated: true },
    'fx__search counted (estimated, too big to count exactly): ≈2,000,000 tokens produced, 1,000 delivered',
  ],
  [{ ...counted, tokensUpstream: 0, tokensDelivered: 1_500, readBack: true }, 'fx__search: read back 1,500 tokens of a kept result'],
  [{ ...counted, tokensUpstream: 0, tokensDelivered: 412, dispatchAnswer: true }, 'fx__search: answered with 412 tokens'],
  [
    { ...counted, tokensUpstream: 6425, tokensDelivered: 1165, listed: true },
    'Tool list sent: 1,165 tokens of tool descriptions (your servers offer 6,425)',
  ],
  [{ type: 'upstream.status', level: 'info', server: 'fx', status: 'ready', tools: 3 }, 'fx is ready'],
  [{ type: 'upstream.status', level: 'warn', server: 'db', status: 'error', error: 'exited with code 1' }, 'db failed: exited with code 1'],
  [{ type: 'upstream.status', level: 'info', server: 'db', status: 'idle' }, 'db is idle (it starts on its next call)'],
  [{ type: 'upstream.stderr', level: 'info', server: 'db', line: 'listening on 5432' }, 'db: listening on 5432'],
  [
    { type: 'session.opened', level: 'info', session: 's', client: 'claude-code', clientVersion: '1.2.0', transport: 'http' },
    'claude-code 1.2.0 connected over its local web address',
  ],
  [{ type: 'session.opened', level: 'info', session: 's', transport: 'bridge' }, "A client connected through Spillway's connector program"],
  [{ type: 'session.closed', level: 'info', session: 's', client: 'codex' }, 'codex disconnected'],
  [{ type: 'session.reaped', level: 'info', session: 's', reason: 'idle', idleMs: 1 }, "A client's session was closed: unused for a while"],
  [
    { type: 'session.reaped', level: 'info', session: 's', client: 'x', reason: 'cap', idleMs: 1 },
    "x's session was closed: too many sessions were open",
  ],
  [{ type: 'catalog.changed', level: 'info', tools: 1204, resources: 1, prompts: 2 }, 'Tools changed: 1,204 tools, 1 resource, 2 prompts'],
  [{ type: 'catalog.changed', level: 'info', tools: 1, resources: 0, prompts: 0 }, 'Tools changed: 1 tool'],
  [{ type: 'config.changed', level: 'info', what: 'compression turned on' }, 'Settings changed: compression turned on'],
  [
    { type: 'tool.withheld', level: 'warn', server: 'fx', tool: 'search', oldDescription: 'a', newDescription: 'b', schemaDiff: [] },
    'fx: search changed and is held back until you approve it (Tools & policies)',
  ],
  [{ type: 'tool.approved', level: 'info', server: 'fx', tool: 'search' }, 'fx: search approved'],
  [{ type: 'log', level: 'warn', server: 'files', message: 'disk nearly full' }, 'files: disk nearly full'],
  [{ type: 'log', level: 'info', message: 'hub started' }, 'hub started'],
] as Array<[HubEventInput, string]>;

const stamped = (input: HubEventInput, seq: number) => ({ ...input, seq, time: '2026-03-10T12:00:00.000Z' }) as HubEvent;

describe('the summary with numbers written by hand (the hub)', () => {
  it.each(ROWS.map(([input, line], i) => [line, input, i] as const))('%s', (line, input, i) => {
    expect(summarizeEvent(stamped(input, i + 1), plainNumbers)).toBe(line);
  });

  it("reads as the window's summary with en-US Intl numbers, for every kind of row", () => {
    ROWS.forEach(([input], i) => {
      const event = stamped(input, i + 1);
      expect(summarizeEvent(event, plainNumbers)).toBe(summarizeEvent(event, intlNumbers));
    });
  });
});

describe('plainCompact', () => {
  it.each([
    0, 1, 999, 1000, 1049, 1050, 1250, 9_950, 99_949, 99_950, 999_499, 999_500, 999_949, 999_950, 1_000_000, 1_250_000, 1e9, 1e12, 1e15, 123_456_789,
  ])('writes %d as Intl en-US compact does', (n) => expect(plainCompact(n)).toBe(compact.format(n)));

  it('agrees with Intl on counts of every size (a seeded sweep)', () => {
    let seed = 20;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 20_000; i++) {
      const n = Math.floor(random() * 10 ** (1 + Math.floor(random() * 15)));
      expect(plainCompact(n), String(n)).toBe(compact.format(n));
    }
  });
});

describe('plainDuration', () => {
  it.each([
    [0, '0 ms'],
    [12.4, '12 ms'],
    [999.4, '999 ms'],
    [1000, '1.0 s'],
    [1234, '1.2 s'],
    [9_949, '9.9 s'],
    [10_000, '10 s'],
    [61_500, '62 s'],
  ])('writes %d ms as "%s"', (ms, text) => expect(plainDuration(ms)).toBe(text));
});

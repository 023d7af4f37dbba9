/**
 * Which HTTP sessions are closed (session-reaping.ts), as a table of cases; and the sentence a tools/call
 * with params of the wrong types is refused with (call-params.ts).
 */
import { describe, expect, it } from 'vitest';
import { callParamsProblem } from '../../electron/core/downstream/call-params.js';
import { sessionsToReap, type SessionUse } from '../../electron/core/downstream/session-reaping.js';

function use(id: string, lastSeenMs: number, state: { open?: number; streams?: number; running?: number } = {}): SessionUse {
  return {
    open: state.open ?? state.streams ?? 0,
    streams: state.streams ?? 0,
    lastSeenMs,
    session: { id, inflight: { size: state.running ?? 0 } },
  };
}

const reaped = (sessions: SessionUse[], now: number, limits: { idleTimeoutMs: number; maxSessions: number }, keep?: string) =>
  sessionsToReap(sessions, now, limits, keep).map((r) => `${r.use.session.id}:${r.reason}:${r.idleMs}`);

describe('sessionsToReap', () => {
  const limits = { idleTimeoutMs: 100, maxSessions: 3 };

  it('closes a session idle past the timeout, and only then', () => {
    expect(reaped([use('a', 0), use('b', 50)], 100, limits)).toEqual(['a:idle:100']);
    expect(reaped([use('a', 0)], 99, limits)).toEqual([]);
  });

  it('never counts as idle a session with a request open, a GET stream open or a request running', () => {
    const busy = [use('open', 0, { open: 1 }), use('listening', 0, { streams: 1 }), use('running', 0, { running: 1 })];
    expect(reaped(busy, 10_000, limits)).toEqual([]);
  });

  it('past the cap, closes idle sessions first, then listening ones, least recently used first', () => {
    const sessions = [use('listening-old', 0, { streams: 1 }), use('idle-new', 50), use('idle-newer', 60), use('listening-new', 70, { streams: 1 })];
    expect(reaped(sessions, 80, limits)).toEqual(['idle-new:cap:30']);
    expect(reaped(sessions, 80, { ...limits, maxSessions: 1 })).toEqual(['idle-new:cap:30', 'idle-newer:cap:20', 'listening-old:cap:80']);
  });

  it('past the cap, never closes the opening session or one with a request open or running', () => {
    const sessions = [use('running', 0, { running: 1 }), use('posting', 1, { open: 2, streams: 1 }), use('opening', 2), use('idle', 3)];
    expect(reaped(sessions, 4, { ...limits, maxSessions: 1 }, 'opening')).toEqual(['idle:cap:1']);
  });

  it('counts the sessions reaped for idleness against the cap', () => {
    expect(reaped([use('a', 0), use('b', 200), use('c', 210), use('d', 220)], 250, limits)).toEqual(['a:idle:250']);
  });
});

describe('callParamsProblem', () => {
  it.each([
    [undefined, 'Invalid params: tools/call takes params such as {"name": "…", "arguments": {…}}, and none were sent.'],
    ['x', 'Invalid params: tools/call takes an object such as {"name": "…", "arguments": {…}}, not a string.'],
    [null, 'Invalid params: tools/call takes an object such as {"name": "…", "arguments": {…}}, not null.'],
    [{}, 'Invalid params: the tool\'s "name" is missing.'],
    [{ name: 5 }, 'Invalid params: "name" must be the tool\'s name as a string, not a number.'],
    [{ name: 't', arguments: 'x' }, 'Invalid params: "arguments" must be an object of the tool\'s arguments by name, not a string.'],
    [{ name: 't', arguments: [1] }, 'Invalid params: "arguments" must be an object of the tool\'s arguments by name, not an array.'],
    [{ name: 't', _meta: 3 }, 'Invalid params: "_meta" must be an object, not a number.'],
    [{ name: 't', _meta: { progressToken: true } }, 'Invalid params: "_meta.progressToken" is invalid.'],
    [{ name: 't', task: 5 }, 'Invalid params: "task" is invalid (expected object, received number).'],
  ])('%j: %s', (params, sentence) => {
    expect(callParamsProblem(params)).toBe(sentence);
  });

  it('accepts what CallToolRequestSchema accepts', () => {
    for (const params of [{ name: 't' }, { name: 't', arguments: {} }, { name: 't', _meta: { progressToken: 1 } }, { name: 't', other: 1 }]) {
      expect(callParamsProblem(params)).toBeUndefined();
    }
  });
});

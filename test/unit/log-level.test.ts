/** wantedLogLevel: the level upstreams are set to, from the levels the sessions asked for. */
import { describe, expect, it } from 'vitest';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { wantedLogLevel } from '../../electron/core/call/log-level.js';

const open = (logLevel?: LoggingLevel) => ({ logLevel, closed: false });
const closed = (logLevel?: LoggingLevel) => ({ logLevel, closed: true });

describe('wantedLogLevel', () => {
  it.each([
    ['no sessions', [], undefined],
    ['no session set a level (the servers keep their own default)', [open(), open()], undefined],
    ['one session set error', [open('error')], 'error'],
    ['the most verbose of those set', [open('error'), open('info'), open('critical')], 'info'],
    ['a session that set none counts as debug', [open('error'), open()], 'debug'],
    ['closed sessions do not count', [open('error'), closed('debug'), closed()], 'error'],
    ['only closed sessions set one', [open(), closed('error')], undefined],
  ] as const)('%s', (_, sessions, expected) => {
    expect(wantedLogLevel(sessions)).toBe(expected);
  });
});

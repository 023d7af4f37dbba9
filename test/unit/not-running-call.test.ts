/**
 * A call of a tool whose server is not running: the words the client gets and the log line are made in
 * one place (relay-errors.ts), the log line naming the client and carrying the same words.
 */
import { expect, it } from 'vitest';
import { notRunningCall } from '../../electron/core/call/relay-errors.js';

const stopped = { id: 'fs', status: 'stopped', error: undefined, client: undefined, reconnecting: false } as const;

it('a stopped server: the client is told to press Restart, and the log says which client called', () => {
  const message =
    `Server "fs" is stopped in Spillway, so its tool "fs__read" cannot be called. ` +
    `Press Restart for it in Spillway's Servers view, then call the tool again.`;
  expect(notRunningCall('fs__read', stopped, 'Cursor')).toEqual({
    message,
    log: `Cursor called a tool of "fs", which is not running: ${message}`,
  });
});

it('a client that gave no name is "A client" in the log', () => {
  expect(notRunningCall('fs__read', stopped, undefined)?.log).toMatch(
    /^A client called a tool of "fs", which is not running: Server "fs" is stopped/,
  );
});

it('a server no longer configured: nothing to say (the call is an unknown tool)', () => {
  expect(notRunningCall('fs__read', undefined, 'Cursor')).toBeUndefined();
});

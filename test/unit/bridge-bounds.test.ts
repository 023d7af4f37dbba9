/**
 * The bridge's bounds on the clock (issue 13, items 1 and 7), in process with fake timers: a start that
 * never answers ends within 10 s (under what clients wait for a first answer) even when the timeout option
 * is passed as undefined (as the command did when SPILLWAY_BRIDGE_TIMEOUT_MS was unset); with --no-start
 * and no hub the bridge ends at once; calls held for a restarted hub's tools go after their bound.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PassThrough } from 'node:stream';
import { Bridge } from '../../electron/cli/bridge/bridge.js';
import { ToolsWait } from '../../electron/cli/bridge/tools-wait.js';
import type { Peek } from '../../electron/cli/bridge/messages.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('bridge bounds', () => {
  it('answers initialize with an error within 10 s when no hub ever comes (timeoutMs: undefined keeps the default)', async () => {
    vi.useFakeTimers();
    const input = new PassThrough();
    const output = new PassThrough();
    const written: string[] = [];
    output.on('data', (c: Buffer) => written.push(c.toString('utf8')));
    const started: number[] = [];
    const bridge = new Bridge({
      input,
      output,
      log: () => undefined,
      socketPath: '/nonexistent/spillway.sock',
      token: async () => undefined,
      hubId: async () => undefined,
      startHub: () => void started.push(Date.now()),
      timeoutMs: undefined,
    });
    let code: number | undefined;
    void bridge.run().then((c) => (code = c));
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })}\n`);

    await vi.advanceTimersByTimeAsync(9_000);
    expect(code).toBeUndefined();
    expect(started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(code).toBe(1);
    const answer = JSON.parse(written.join('').trim()) as { id: number; error: { message: string } };
    expect(answer.id).toBe(1);
    expect(answer.error.message).toMatch(/did not start within 10 s/);
  });

  it('with --no-start, answers initialize with an error as soon as nothing answers (no wait)', async () => {
    vi.useFakeTimers();
    const input = new PassThrough();
    const output = new PassThrough();
    const written: string[] = [];
    output.on('data', (c: Buffer) => written.push(c.toString('utf8')));
    const bridge = new Bridge({
      input,
      output,
      log: () => undefined,
      socketPath: '/nonexistent/spillway.sock',
      token: async () => 'token',
      hubId: async () => 'hub-id-0123456789',
      httpUrls: async () => [],
    });
    let code: number | undefined;
    const began = Date.now();
    void bridge.run().then((c) => (code = c));
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })}\n`);
    // Only the probes of the socket (refused at once) and of no HTTP endpoint: no wait between looks.
    // (vi.waitFor moves the fake clock on by 50 ms a check: any wait of the bridge would show here.)
    await vi.waitFor(() => expect(code).toBe(1));
    expect(Date.now() - began).toBeLessThan(500);
    const answer = JSON.parse(written.join('').trim()) as { id: number; error: { message: string } };
    expect(answer).toMatchObject({
      id: 1,
      error: { message: expect.stringMatching(/Spillway is not running .*--no-start.*start the Spillway app/) },
    });
  });

  it('sends the held calls when the hub does not list their tools within the bound', async () => {
    vi.useFakeTimers();
    const listed: (string | undefined)[] = [];
    const log: string[] = [];
    let done = 0;
    const wait = new ToolsWait({
      needed: new Set(['slow__ping']),
      calls: 2,
      list: async (cursor): Promise<Peek> => {
        listed.push(cursor);
        return { jsonrpc: '2.0', id: 'x', result: { tools: [{ name: 'other__tool' }] } };
      },
      timeoutMs: 15_000,
      log: (line) => log.push(line),
      done: () => done++,
    });
    wait.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(log.join('\n')).toMatch(/waiting for the hub to list slow__ping before sending 2 waiting calls/);
    // A list_changed that still lacks the tool: it lists again and keeps waiting.
    wait.changed();
    await vi.advanceTimersByTimeAsync(14_000);
    expect(listed).toHaveLength(2);
    expect(done).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(done).toBe(1);
    expect(log.join('\n')).toMatch(/did not list every tool within 15 s/);
  });
});

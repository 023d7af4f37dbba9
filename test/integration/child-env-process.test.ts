/**
 * A real server started by the hub's stdio transport does not see the hub's own SPILLWAY_* variables
 * (audit s11, item 4: a server saw SPILLWAY_TOKEN), while one its config sets does reach it.
 */
import { describe, expect, it } from 'vitest';
import { StdioUpstreamTransport } from '../../electron/core/upstream/stdio-transport.js';
import { NODE } from '../support/hub-harness.js';

describe('the environment of a stdio server', () => {
  it("holds the user's variables and its configured ones, not the hub's", async () => {
    const transport = new StdioUpstreamTransport({
      command: NODE,
      args: ['-e', 'console.error(JSON.stringify(Object.keys(process.env).filter((k) => /SPILLWAY|^HOME$/.test(k)).sort()))'],
      env: { SPILLWAY_SECRET_ARG_1: 'configured' },
      baseEnv: { ...process.env, SPILLWAY_TOKEN: 'hub-token', SPILLWAY_DATA_DIR: '/hub/data', HOME: '/home/ana' },
      platform: process.platform,
    });
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    await transport.start();
    await closed;
    expect(JSON.parse(transport.stderrTail().join(''))).toEqual(['HOME', 'SPILLWAY_SECRET_ARG_1']);
  });
});

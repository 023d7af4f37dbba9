/**
 * A stopped pool starts nothing (shell audit s13): a restart during or after the hub's stop would leave
 * a server running past the app's exit.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServerConfig } from '../../shared/config.js';
import { UpstreamPool } from '../../electron/core/upstream/upstream-pool.js';

const config = { type: 'stdio', command: 'in-memory', args: [], env: {}, enabled: true, prefix: true } as ServerConfig;

/** A pool whose servers are in-memory SDK servers; counts the connections it opens. */
function pool() {
  let opened = 0;
  let ready!: () => void;
  const firstReady = new Promise<void>((resolve) => (ready = resolve));
  const p = new UpstreamPool({
    upstream: { clientInfo: { name: 'test', version: '1' } },
    onStatus: (change) => {
      if (change.status === 'ready') ready();
    },
    hooks: {
      createTransport: async () => {
        opened++;
        const [client, server] = InMemoryTransport.createLinkedPair();
        const mcp = new McpServer({ name: 'mem', version: '1' });
        mcp.registerTool('noop', { description: 'Does nothing.' }, async () => ({ content: [] }));
        await mcp.connect(server);
        return { transport: client };
      },
      onStderr: () => {},
      onListsChanged: () => {},
      onProgress: () => {},
      onLog: () => {},
      onResourceUpdated: () => {},
      routeRequest: () => Promise.resolve({}),
    },
  });
  return { pool: p, opened: () => opened, firstReady };
}

describe('UpstreamPool.restart', () => {
  it('after the pool stopped: starts nothing', async () => {
    const t = pool();
    t.pool.start({});
    await t.pool.stop();
    const up = await t.pool.restart('mem', config);
    expect(up.status).toBe('stopped');
    expect(t.opened()).toBe(0);
    expect(t.pool.size).toBe(0);
  });

  it('while the pool stops: the server stays stopped', async () => {
    const t = pool();
    t.pool.start({ mem: config });
    const up = t.pool.get('mem')!;
    await t.firstReady;
    expect(t.opened()).toBe(1);
    const restarting = t.pool.restart('mem', config);
    await t.pool.stop();
    await restarting;
    expect(up.status).toBe('stopped');
    expect(t.opened()).toBe(1);
  });
});

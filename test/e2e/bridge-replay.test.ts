/**
 * A call sent through the bridge while its hub restarts (issue 13, item 7): it waits until the restarted
 * hub lists its tool, instead of being replayed to a hub whose upstreams are not ready ("Unknown tool").
 * The upstream's start is held by a gate file, so the order is the test's, not the machine's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, LISTENING, openBridge, plainEnv, toolListed } from '../support/bridge-client.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

let root: string;
let dataDir: string;
let gate: string;
let hub: Started | undefined;

const serve = async () => (hub = await spawnUntil(NODE, [BIN, 'serve', '--data-dir', dataDir, '--port', '0'], LISTENING, { env: plainEnv() }));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-bridge-replay-'));
  dataDir = join(root, 'data');
  gate = join(root, 'gate-open');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(
    join(dataDir, 'config.json'),
    JSON.stringify({
      version: 1,
      servers: { slow: { type: 'stdio', command: NODE, args: [fixture('gated-server.mjs'), '--gate', gate] } },
      settings: { port: 0 },
    }),
  );
});

afterAll(async () => {
  await hub?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('spillway bridge across a hub restart', () => {
  it('holds a call sent during the outage until the restarted hub lists its tool, then sends it', async () => {
    await writeFile(gate, '');
    await serve();
    const { client, said } = await openBridge(['--data-dir', dataDir, '--no-start']);
    try {
      await toolListed(client, 'slow__ping');

      // The next hub's upstream will not come up until the gate opens again.
      await rm(gate);
      await hub!.stop();
      hub = undefined;
      await said(/lost the connection/);
      // Without the last run's catalog (as on a first start, or after a config change) the new hub lists
      // nothing of slow's until it is up, so the bridge holds the call. With it, the hub lists slow__ping at
      // once and holds the call itself (test/e2e/kept-catalog.test.ts).
      await rm(join(dataDir, 'kept-catalog.json'), { force: true });
      const call = client.callTool({ name: 'slow__ping', arguments: {} });

      await serve();
      // The bridge has reconnected and seen that the new hub does not list the tool yet: the call waits.
      const first = await Promise.race([
        said(/waiting for the hub to list slow__ping before sending 1 waiting call/).then(() => 'waiting'),
        call.then(
          (r) => `answered: ${JSON.stringify(r)}`,
          (err: Error) => `failed: ${err.message}`,
        ),
      ]);
      expect(first).toBe('waiting');

      await writeFile(gate, '');
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain('pong');
    } finally {
      await client.close();
    }
  });
});

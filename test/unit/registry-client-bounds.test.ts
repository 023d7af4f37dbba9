/**
 * A registry answer is read within bounds (issue 16): one that is far too large is cut off at the cap
 * and said to be too large, one that drips bytes forever ends at the deadline and is said to be late —
 * neither is misreported as "not an MCP Registry", and neither is held whole in memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RegistryClient, RegistryError } from '../../electron/core/registry/registry-client.js';

const MB = 1024 * 1024;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url!.startsWith('/drip/')) {
      // A valid start, then a space every 20 ms, forever.
      res.write('{"servers":[');
      const drip = setInterval(() => res.write(' '), 20);
      return void res.on('close', () => clearInterval(drip));
    }
    // 3 MB of valid JSON, no content-length: only counting the bytes read finds it too large.
    res.end(`{"servers":[${' '.repeat(3 * MB)}]}`);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
});

const failure = (client: RegistryClient) =>
  client.getJson(client.listUrl({}), 'the list').then(
    () => undefined,
    (e: unknown) => e,
  );

describe('registry answers read within bounds', () => {
  it('an answer larger than the cap is refused as too large', async () => {
    const err = await failure(new RegistryClient({ baseUrl: `${base}/huge`, maxAnswerBytes: 1 * MB }));
    expect(err).toBeInstanceOf(RegistryError);
    expect(err).toMatchObject({
      kind: 'unreachable',
      message: expect.stringMatching(/sent an answer larger than 1 MB.*stopped reading it\. Check the registry address in Settings/),
    });
  });

  it('an answer that never ends is reported as late, not as "not an MCP Registry"', async () => {
    const err = await failure(new RegistryClient({ baseUrl: `${base}/drip`, timeoutMs: 2000 }));
    expect(err).toMatchObject({
      kind: 'unreachable',
      message: expect.stringMatching(/did not answer within 2 seconds\. Check your internet connection/),
    });
  });
});

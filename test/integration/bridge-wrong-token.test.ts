/**
 * A hub that refuses the bridge's token, on the socket (the real endpoint) and over HTTP (a stand-in that
 * proves the hub's id and answers 401): the client hears once that Spillway refused the bridge, and what
 * to do. A SPILLWAY_TOKEN in the client's settings wins over the token file, so reading that file again
 * cannot help: the advice is to remove it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachSocketEndpoint, type SocketEndpoint } from '../../electron/core/downstream/socket-endpoint.js';
import { HUB_IDENTITY_PATH, hubProof } from '../../electron/core/files/hub-identity.js';
import { answerTo, HUB_ID, inProcessBridge } from '../support/bridge-in-process.js';

let dir: string;
let endpoint: SocketEndpoint;
let http: Server;
let url: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-bridge-token-'));
  const hub = { token: 'the-token-of-this-hub', connectSession: async () => undefined };
  endpoint = await attachSocketEndpoint(hub, {
    path: join(dir, 'spillway.sock'),
    platform: process.platform,
    proveIdentity: (nonce) => hubProof(HUB_ID, nonce, 'socket'),
  });
  http = createServer((req, res) => {
    const at = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (at.pathname !== HUB_IDENTITY_PATH) return void res.writeHead(401).end();
    const port = (http.address() as AddressInfo).port;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ proof: hubProof(HUB_ID, at.searchParams.get('nonce') ?? '', { port }) }));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await endpoint.close();
  await new Promise((resolve) => http.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** What the client hears when it initializes through a bridge with a wrong token. */
async function refused(tokenFromEnv: boolean, via: 'socket' | 'http'): Promise<string> {
  const b = inProcessBridge({
    socketPath: via === 'socket' ? endpoint.path : join(dir, 'nothing-here.sock'),
    httpUrls: async () => [url],
    token: async () => 'not-the-token-of-this-hub',
    tokenFromEnv,
  });
  b.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
  const answer = await b.next(answerTo(1));
  expect(await b.done).toBe(1);
  expect(b.log.join('\n')).toContain(answer.error?.message);
  return answer.error?.message ?? '';
}

const once = (text: string, part: string) => text.split(part).length - 1;

describe('a bridge whose token the hub refuses', () => {
  it.each(['socket', 'http'] as const)(
    'says over the %s that the SPILLWAY_TOKEN in the client settings is not this hub’s, and to remove it',
    async (via) => {
      const message = await refused(true, via);
      expect(message).toMatch(/this client's settings carry a SPILLWAY_TOKEN that is not this Spillway's token/);
      expect(message).toMatch(/Remove SPILLWAY_TOKEN from this client's settings.*or reconnect the app from Spillway's Clients view/);
      expect(message).not.toMatch(/token file/);
      expect(once(message, 'refused the bridge')).toBe(1);
    },
  );

  it('with the token from the token file, gives the hub’s reason once', async () => {
    const message = await refused(false, 'socket');
    expect(message).toBe(
      `Spillway refused the bridge at ${endpoint.path}: wrong token: read it again from the token file in the Spillway data folder`,
    );
    expect(await refused(false, 'http')).toBe(`Spillway refused the bridge at ${url}: wrong token (HTTP 401)`);
  });
});

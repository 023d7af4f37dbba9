/**
 * The parts of a stored secret are masked on their own: the store keeps whole words (`--token=X`,
 * `postgres://u:PW@host/db`, `Bearer X`), and a server printing `X` or `PW` alone, or a value in base64 or
 * URL-encoded, must not show it in `upstreams.list`, the events or any file the hub writes. A Test of an
 * unsaved remote address masks the key in its address the same way.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

/** The files under `dir` (names relative to it) whose bytes contain `needle`. */
async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  const found: string[] = [];
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    if ((await readFile(path, 'latin1').catch(() => '')).includes(needle)) found.push(path.slice(dir.length + 1));
  }
  return found;
}

/** An HTTP server answering every request with a JSON-RPC error made from it (quoting its credentials). */
async function refusingServer(message: (req: { url: string; authorization: string }) => string): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    const body = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: message({ url: req.url ?? '/', authorization: req.headers.authorization ?? '' }) },
    };
    res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const origin = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const hubs: TestHub[] = [];
const servers: Server[] = [];
afterAll(async () => {
  for (const hub of hubs) await hub.stop().catch(() => undefined);
  for (const server of servers) server.close();
});

/** Where `secrets` show: the list, the events kept in memory, the hub's files (secrets.enc is sealed). */
async function shown(hub: TestHub, secrets: string[]) {
  const list = JSON.stringify(await hub.api('upstreams.list'));
  const status = JSON.stringify(await hub.api('status'));
  const events = JSON.stringify(hub.hub.events.recent());
  await hub.hub.events.flush();
  const files = (await Promise.all(secrets.map((s) => filesHolding(hub.dir, s)))).flat();
  return {
    list: secrets.filter((s) => list.includes(s)),
    status: secrets.filter((s) => status.includes(s)),
    events: secrets.filter((s) => events.includes(s)),
    files,
  };
}

const NOTHING = { list: [], status: [], events: [], files: [] };

describe('parts of stored secrets', () => {
  it('the value of a --token= word, an address password, and env values in base64 or URL-encoded are masked', async () => {
    const TOKEN = 'eqform-token-4410x';
    const PW = 'dbpassword3377x';
    const ENV = 'env/value+with=odd chars';
    const hub = await startTestHub({
      version: 1,
      servers: {
        s: {
          type: 'stdio',
          ...nodeServer(fixture('leaky-server.mjs'), [`--token=${TOKEN}`, `postgres://u:${PW}@host/db`]),
          env: { LEAK_NAMES: 'K', K: ENV },
        },
      },
    });
    hubs.push(hub);
    await hub.waitForStatus('s', 'ready');
    const last = (e: HubEvent) => e.type === 'upstream.stderr' && e.server === 's' && e.line.includes('env-url');
    if (!hub.hub.events.recent().some(last)) await hub.waitFor(last, 'the last stderr line of the leaky server');
    const encoded = [Buffer.from(ENV).toString('base64'), encodeURIComponent(ENV)];
    expect(await shown(hub, [TOKEN, PW, ENV, ...encoded])).toEqual(NOTHING);
    // What was printed is still there, masked.
    expect(JSON.stringify(hub.hub.events.recent())).toContain('option token is set to ***');
  });

  it('the credential of an Authorization "Bearer X" header is masked alone when a server quotes it', async () => {
    const TOKEN = 'quietly-lowercase-kappa';
    const server = await refusingServer(({ authorization }) => `no account matches ${authorization.replace(/^Bearer /, '')}`);
    servers.push(server);
    const hub = await startTestHub({
      version: 1,
      servers: { h: { type: 'http', url: `${origin(server)}/mcp`, headers: { Authorization: `Bearer ${TOKEN}` } } },
    });
    hubs.push(hub);
    await hub.waitForStatus('h', 'error');
    const listed = (await hub.api<{ id: string; error?: string }[]>('upstreams.list')).value!.find((u) => u.id === 'h');
    expect(listed?.error).toContain('no account matches ***');
    expect(await shown(hub, [TOKEN])).toEqual(NOTHING);
  });

  it('Test of an unsaved remote address masks the key in it when the server quotes that key', async () => {
    const KEY = 'quietly-lowercase-urlkey';
    const server = await refusingServer(({ url }) => `no account for ${new URL(url, 'http://x').searchParams.get('api_key')}`);
    servers.push(server);
    const hub = await startTestHub({ version: 1, servers: {} });
    hubs.push(hub);
    const answer = await hub.api<{ ok: boolean; error?: string }>('upstreams.test', {
      config: { type: 'http', url: `${origin(server)}/mcp?api_key=${KEY}`, headers: {} },
    });
    expect(answer.value?.ok).toBe(false);
    expect(answer.value?.error).toContain('no account for ***');
    expect(JSON.stringify(answer)).not.toContain(KEY);
  });
});

/**
 * The bridge socket against a real hub (server-everything behind it) with a raw socket client: the
 * handshake, an MCP session over newline-delimited JSON-RPC, owner-only permissions, stale-file recovery.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { attachSocketEndpoint, socketPathFor, SocketInUseError, type SocketEndpoint } from '../../electron/core/downstream/socket-endpoint.js';
import { hubProof, newNonce, provesHub } from '../../electron/core/files/hub-identity.js';
import { EVERYTHING, NODE, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { spawnUntil } from '../support/processes.js';

const unix = process.platform !== 'win32';
const HUB_ID = 'socket-test-hub-id-0123456789';
const proveIdentity = (nonce: string) => hubProof(HUB_ID, nonce, 'socket');
let hub: TestHub;
let endpoint: SocketEndpoint;

beforeAll(async () => {
  hub = await startTestHub({ mcpServers: { everything: nodeServer(EVERYTHING, ['stdio']) } });
  endpoint = await attachSocketEndpoint(hub.hub, {
    path: socketPathFor({ dataDir: hub.dir, platform: process.platform }),
    platform: process.platform,
    proveIdentity,
  });
  await hub.waitForStatus('everything', 'ready');
});

afterAll(async () => {
  await endpoint?.close();
  await hub?.stop();
});

/** A raw client: collects lines, answers `next()` with the next one. */
function rawClient(path: string) {
  const socket = createConnection(path);
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  return {
    socket,
    send: (value: unknown) => socket.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`),
    next: () => new Promise<string>((resolve) => (lines.length > 0 ? resolve(lines.shift()!) : waiters.push(resolve))),
    json: async function (this: { next(): Promise<string> }) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read by path in the assertions
      return JSON.parse(await this.next()) as Record<string, any>;
    },
  };
}

const closed = (socket: Socket) => (socket.closed ? Promise.resolve() : once(socket, 'close').then(() => undefined));

/** The bridge's half of the handshake's first exchange: the hub must prove this folder's id. */
async function challenge(c: ReturnType<typeof rawClient>): Promise<void> {
  const nonce = newNonce();
  c.send({ nonce, client: 'raw' });
  expect(provesHub(HUB_ID, nonce, 'socket', (await c.json()).hub)).toBe(true);
}

describe('bridge socket endpoint', () => {
  it('refuses a wrong token with one JSON line and closes', async () => {
    const c = rawClient(endpoint.path);
    await challenge(c);
    c.send({ token: 'not-the-token' });
    const answer = await c.json();
    expect(answer.ok).toBe(false);
    expect(answer.error).toMatch(/wrong token/);
    await closed(c.socket);
  });

  it('refuses a first line that is not JSON', async () => {
    const c = rawClient(endpoint.path);
    c.send('{"jsonrpc":"2.0","id":1,"method":"initialize"'); // broken JSON, no token
    expect((await c.json()).ok).toBe(false);
    await closed(c.socket);
  });

  it('serves an MCP session after the right token, with messages sent in the same write as the handshake', async () => {
    const c = rawClient(endpoint.path);
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-socket', version: '1' } },
    };
    // Token and initialize in one write: the endpoint must not lose the bytes after the token line.
    await challenge(c);
    c.socket.write(`${JSON.stringify({ token: hub.token })}\n${JSON.stringify(init)}\n`);
    expect(await c.json()).toEqual({ ok: true });
    const initialized = await c.json();
    expect(initialized.id).toBe(1);
    expect(initialized.result.serverInfo.name).toBe('spillway');
    c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    c.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const list = await c.json();
    expect(list.id).toBe(2);
    expect(list.result.tools.map((t: { name: string }) => t.name)).toContain('everything__echo');
    c.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'über the socket' } } });
    const echo = await c.json();
    expect(echo.id).toBe(3);
    expect(JSON.stringify(echo.result.content)).toContain('über the socket');
    expect(hub.status.sessionInfos().some((s) => s.transport === 'bridge' && s.client === 'raw-socket')).toBe(true);
    const sessionClosed = hub.waitFor((e) => e.type === 'session.closed' && e.client === 'raw-socket', 'session closed');
    c.socket.end();
    await sessionClosed;
  });

  it.runIf(unix)('is owner-only: socket 0600 in a 0700 folder', async () => {
    expect((await stat(endpoint.path)).mode & 0o777).toBe(0o600);
    expect((await stat(hub.dir)).mode & 0o777).toBe(0o700);
  });

  it.runIf(unix)('refuses to take over a socket another hub answers on', async () => {
    await expect(attachSocketEndpoint(hub.hub, { path: endpoint.path, platform: process.platform, proveIdentity })).rejects.toBeInstanceOf(
      SocketInUseError,
    );
  });

  it.runIf(unix)('replaces a stale socket file left by a crash, and refuses a path that is not a socket', async () => {
    const path = join(hub.dir, 'stale.sock');
    // A real crash: a process listening on the path is killed, and its socket file stays behind.
    const crashed = await spawnUntil(
      NODE,
      ['-e', `require('node:net').createServer().listen(${JSON.stringify(path)}, () => console.log('listening'))`],
      /listening/,
    );
    crashed.child.kill('SIGKILL');
    await once(crashed.child, 'exit');
    expect((await stat(path)).isSocket()).toBe(true);
    const second = await attachSocketEndpoint(hub.hub, { path, platform: process.platform, proveIdentity });
    const c = rawClient(path);
    await challenge(c);
    c.send({ token: hub.token });
    expect(await c.json()).toEqual({ ok: true });
    c.socket.destroy();
    await second.close();

    const notSocket = join(hub.dir, 'plain-file.sock');
    await writeFile(notSocket, 'x');
    await expect(attachSocketEndpoint(hub.hub, { path: notSocket, platform: process.platform, proveIdentity })).rejects.toThrow(/not a socket/);
  });

  it('names a Windows pipe from the data folder and keeps Unix paths short', () => {
    const pipe = socketPathFor({ dataDir: 'C:\\Users\\Ana\\AppData\\Roaming\\Spillway', platform: 'win32' });
    expect(pipe).toMatch(/^\\\\\.\\pipe\\spillway-[0-9a-f]{12}$/);
    expect(socketPathFor({ dataDir: 'c:\\users\\ana\\appdata\\roaming\\spillway', platform: 'win32' })).toBe(pipe);
    expect(socketPathFor({ dataDir: '/home/ana/.config/Spillway', platform: 'linux' })).toBe('/home/ana/.config/Spillway/spillway.sock');
    const deep = `/home/ana/${'very-long-folder-name/'.repeat(6)}Spillway`;
    expect(socketPathFor({ dataDir: deep, platform: 'darwin', uid: 501 })).toMatch(/^\/tmp\/spillway-501\/[0-9a-f]{12}\.sock$/);
  });

  it('puts the socket of a deep data folder in /tmp whatever the temp folder of the process (hub and bridge agree)', () => {
    const deep = `/Users/ana/${'very-long-folder-name/'.repeat(6)}Spillway`;
    // The desktop app runs with TMPDIR set; a client starts its bridge without it (the SDK passes no TMPDIR).
    const bridge = socketPathFor({ dataDir: deep, platform: 'darwin', uid: 501 });
    const before = process.env.TMPDIR;
    process.env.TMPDIR = '/var/folders/xy/T';
    try {
      expect(socketPathFor({ dataDir: deep, platform: 'darwin', uid: 501 })).toBe(bridge);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(socketPathFor({ dataDir: deep, platform: 'linux', uid: 501 })).toBe(bridge);
    expect(dirname(bridge)).toBe('/tmp/spillway-501');
  });

  it('proves itself before it takes a token, and takes no token as the first line', async () => {
    // A bridge that led with its token (as bridges did) would hand it to any listener: refused.
    const early = rawClient(endpoint.path);
    early.send({ token: hub.token, client: 'old-bridge' });
    const refused = await early.json();
    expect(refused).toMatchObject({ ok: false, error: expect.stringMatching(/first line must be JSON: \{"nonce"/) });
    expect(refused.hub).toBeUndefined();
    await closed(early.socket);
  });

  describe.runIf(unix)('a data folder too deep for a socket path (the socket goes to /tmp/spillway-<uid>)', () => {
    let shared: string;
    beforeAll(async () => {
      // A temp folder shared by every user, like /tmp: 1777.
      shared = await mkdtemp(join(tmpdir(), 'spillway-shared-tmp-'));
      await chmod(shared, 0o1777);
    });
    afterAll(() => rm(shared, { recursive: true, force: true }));
    const deep = () => join(hub.dir, 'very-long-folder-name-'.repeat(5), 'Spillway');
    const uid = process.getuid?.();
    /** The socket path socketPathFor gives, moved from /tmp into the test's own shared folder. */
    const inShared = () => join(shared, basename(dirname(socketPathFor({ dataDir: deep(), platform: process.platform, uid }))), 'test.sock');

    it('listens in /tmp/spillway-<uid>, a folder of this user only, and leaves /tmp as it was', async () => {
      const path = socketPathFor({ dataDir: deep(), platform: process.platform, uid });
      expect(dirname(path)).toBe(`/tmp/spillway-${uid}`);
      const tmpMode = (await stat('/tmp')).mode & 0o7777;
      const deepEndpoint = await attachSocketEndpoint(hub.hub, { path, platform: process.platform, proveIdentity });
      try {
        expect((await stat('/tmp')).mode & 0o7777).toBe(tmpMode);
        const folder = await stat(dirname(path));
        expect(folder.mode & 0o777).toBe(0o700);
        expect(folder.uid).toBe(uid);
        expect((await stat(path)).mode & 0o777).toBe(0o600);
      } finally {
        await deepEndpoint.close();
      }
    });

    it('listens in a folder of this user only, and leaves the shared temp folder as it was', async () => {
      const path = inShared();
      expect(dirname(path)).toBe(join(shared, `spillway-${uid}`));
      const deepEndpoint = await attachSocketEndpoint(hub.hub, { path, platform: process.platform, proveIdentity });
      try {
        expect((await stat(shared)).mode & 0o7777).toBe(0o1777);
        const folder = await stat(dirname(path));
        expect(folder.mode & 0o777).toBe(0o700);
        expect(folder.uid).toBe(uid);
        expect((await stat(path)).mode & 0o777).toBe(0o600);
        const c = rawClient(path);
        await challenge(c);
        c.send({ token: hub.token });
        expect(await c.json()).toEqual({ ok: true });
        c.socket.destroy();
      } finally {
        await deepEndpoint.close();
      }
    });

    it('refuses a socket folder another user made, and never changes a shared folder', async () => {
      const path = inShared();
      // The folder is this process's; the endpoint is told it runs as someone else, as if another user had made it.
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await expect(attachSocketEndpoint(hub.hub, { path, platform: process.platform, proveIdentity, uid: (uid ?? 0) + 1 })).rejects.toThrow(
        /belongs to another user.*shorter path/,
      );
      // A socket right in the shared folder (a data folder of /tmp itself): refused, and the folder is left 1777.
      await expect(attachSocketEndpoint(hub.hub, { path: join(shared, 'spillway.sock'), platform: process.platform, proveIdentity })).rejects.toThrow(
        /shared with other users/,
      );
      expect((await stat(shared)).mode & 0o7777).toBe(0o1777);
    });
  });
});

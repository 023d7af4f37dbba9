/**
 * A remote server whose address holds a user name and password (`http://me:pw@host/mcp`), through the real
 * hub: written so in config.json, and added so through the control API. fetch refuses such an address,
 * so the hub sends the sign-in as an `Authorization: Basic` header (the HTTP fixture's whoami echoes what
 * it got), keeps it in the secret store, and neither config.json nor the server list shows it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { NODE, fixture, startTestHub, type TestHub } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

const PASSWORD = 'pw-7f3a9c2e1d';
const basic = (signIn: string) => `Basic ${Buffer.from(signIn, 'utf8').toString('base64')}`;

let hub: TestHub;
let web: Started;
let client: Client;
/** The fixture's address with a sign-in put in it. */
let signedIn: (user: string, password: string) => string;

beforeAll(async () => {
  web = await spawnUntil(NODE, [fixture('fixture-server.mjs'), '--http', '--port', '0'], /listening on (\S+)/);
  signedIn = (user, password) => web.match[1]!.replace('://', `://${encodeURIComponent(user)}:${encodeURIComponent(password)}@`);
  hub = await startTestHub({ version: 1, servers: { web: { type: 'http', url: signedIn('me@corp', PASSWORD) } } });
  await hub.waitForStatus('web', 'ready');
  client = await hub.connect();
});

afterAll(async () => {
  await hub?.stop();
  await web?.stop();
});

async function authorizationSeenBy(tool: string): Promise<unknown> {
  const r = await client.callTool({ name: tool, arguments: {} });
  return JSON.parse((r.content as { text: string }[])[0]!.text).authorization;
}

describe('a sign-in in a remote server’s address', () => {
  it('written in config.json: the server is reached and gets it as a Basic header', async () => {
    expect(await authorizationSeenBy('web__whoami')).toBe(basic(`me@corp:${PASSWORD}`));
  });

  it('leaves config.json and the server list without it', async () => {
    const file = await readFile(join(hub.dir, 'config.json'), 'utf8');
    expect(file).not.toContain(PASSWORD);
    expect(file).not.toContain(basic(`me@corp:${PASSWORD}`));
    const listed = (await hub.api<{ id: string; config: { url: string; headers: Record<string, string> } }[]>('upstreams.list')).value!;
    const web = listed.find((u) => u.id === 'web')!;
    expect(web.config.url).toBe(signedIn('x', 'y').replace('x:y@', ''));
    expect(web.config.headers.Authorization).not.toContain(basic(`me@corp:${PASSWORD}`).slice(6));
    expect(JSON.stringify(listed)).not.toContain(PASSWORD);
  });

  it('added through the control API: the same, and an Authorization header beside it is refused naming the address', async () => {
    const added = await hub.api<{ id: string }>('upstreams.add', { id: 'web2', config: { type: 'http', url: signedIn('tok_42', '') } });
    expect(added.ok).toBe(true);
    await hub.waitForStatus('web2', 'ready');
    expect(await authorizationSeenBy('web2__whoami')).toBe(basic('tok_42:'));
    const refused = await hub.api('upstreams.add', {
      id: 'web3',
      config: { type: 'http', url: signedIn('me', 'pw'), headers: { Authorization: 'Bearer abc' } },
    });
    expect(refused).toMatchObject({ ok: false });
    expect(`${refused.field} ${refused.message}`).toMatch(/url.*Authorization header is set too/);
  });
});

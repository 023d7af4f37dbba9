/**
 * One client's folders (roots) never become the folders a server uses for every client, through the real
 * hub and the real server-filesystem. A roots/list from a server is answered from the client whose call it
 * serves; outside a call (server-filesystem asks right after initialize) it is answered with no folders,
 * which server-filesystem takes as "keep the folders you were started with". A client's
 * roots/list_changed is not passed on to servers.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { FILESYSTEM, fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let root: string;
let configured: string;
let otherProject: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-roots-'));
  configured = join(root, 'configured');
  otherProject = join(root, 'other-client-project');
  await mkdir(configured);
  await mkdir(otherProject);
  await writeFile(join(configured, 'a.txt'), 'a');
  await writeFile(join(otherProject, 'secret.txt'), 'b-private');
  hub = await startTestHub({ mcpServers: { fs: nodeServer(FILESYSTEM, [configured]), one: nodeServer(fixture('protocol-server.mjs'), ['one']) } });
  await Promise.all(['fs', 'one'].map((id) => hub.waitForStatus(id, 'ready')));
});
afterAll(async () => {
  await hub?.stop();
  await rm(root, { recursive: true, force: true });
});

const text = (r: unknown) => (r as { content: { text: string }[] }).content.map((c) => c.text).join(' ');

/** A client sharing `folder` as its only root; `asked` counts the roots/list requests it gets. */
async function sharing(folder: string, name: string): Promise<{ asked: string[] }> {
  const asked: string[] = [];
  const client = await hub.connect({ capabilities: { roots: { listChanged: true } } }, name);
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked.push(name);
    return { roots: [{ uri: pathToFileURL(folder).href, name }] };
  });
  await client.sendRootsListChanged();
  return { asked };
}

it('server-filesystem keeps its configured folder when it asks for roots while a client shares another folder', async () => {
  const other = await sharing(otherProject, 'X-with-roots');
  const plain = await hub.connect({ capabilities: {} }, 'Y-no-roots');
  // A restarted server-filesystem asks for roots right after initialize, outside any call.
  const answered = hub.waitFor(
    (e) => e.type === 'upstream.stderr' && e.server === 'fs' && /No valid root directories|Updated allowed directories/.test(e.line),
    'server-filesystem applying the roots it was given',
  );
  await hub.api('upstreams.restart', { id: 'fs' });
  const line = await answered;
  expect(line.type === 'upstream.stderr' && line.line).toMatch(/No valid root directories provided by client/);
  await hub.waitForStatus('fs', 'ready');
  expect(text(await plain.callTool({ name: 'fs__read_text_file', arguments: { path: join(otherProject, 'secret.txt') } }))).not.toContain(
    'b-private',
  );
  expect(text(await plain.callTool({ name: 'fs__read_text_file', arguments: { path: join(configured, 'a.txt') } }))).toBe('a');
  expect(other.asked).toEqual([]);
});

it("does not pass a client's roots/list_changed on to servers", async () => {
  await sharing(otherProject, 'X-changing-roots');
  const caller = await hub.connect({ capabilities: {} }, 'caller');
  const state = JSON.parse(text(await caller.callTool({ name: 'one__state', arguments: {} }))) as { events: string[] };
  expect(state.events).not.toContain('roots/list_changed');
});

/**
 * A server whose tool names mix capitals and lower case (Notion's `API-get-user`, Playwright-style
 * `browser_click`) lists them alphabetically, regardless of case: in the Tools window (upstreams.tools) and
 * in the tools/list clients get (the hub orders without ICU, shared/plain-text.ts compareText).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';

let t: TestHub;
const names = ['archive_page', 'Search', 'create_issue', 'Zoom', 'list_repos'];
const alphabetical = [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));

beforeAll(async () => {
  t = await startTestHub(async (dir: string) => {
    const file = join(dir, 'tools.json');
    await writeFile(file, JSON.stringify(names.map((name) => ({ name, inputSchema: { type: 'object', properties: {} } }))));
    return {
      version: 1,
      servers: { srv: { type: 'stdio', command: NODE, args: [fixture('mutable-tools-server.mjs'), file] } },
      settings: { port: 0 },
    };
  });
  await t.waitForStatus('srv', 'ready');
}, 60_000);
afterAll(async () => t?.stop());

it('the Tools window lists a server’s tools alphabetically', async () => {
  const got = await t.api<Array<{ original: string }>>('upstreams.tools', { id: 'srv' });
  expect(got.value?.map((x) => x.original)).toEqual(alphabetical);
});

it('a client’s tools/list is alphabetical', async () => {
  const client = await t.connect();
  const listed = (await client.listTools()).tools.map((x) => x.name).filter((n) => n.startsWith('srv__'));
  expect(listed).toEqual(alphabetical.map((n) => `srv__${n}`));
});

/**
 * Sampling an upstream asks for during one client's call never reaches another client, through the real
 * hub and the real server-everything over stdio. Such a request does not say which call it serves, so the
 * hub passes it on only when a single client has requests in flight to that server; otherwise (two clients
 * calling it, or none) the server is told why not and the log gets a warning.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING, fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({
    mcpServers: { everything: nodeServer(EVERYTHING), one: nodeServer(fixture('protocol-server.mjs'), ['one']) },
  });
  await Promise.all(['everything', 'one'].map((id) => hub.waitForStatus(id, 'ready')));
});
afterAll(async () => hub?.stop());

const text = (r: unknown) => JSON.stringify((r as { content: unknown }).content);
const SEVERAL =
  /Spillway cannot tell which of several connected apps this sampling\/createMessage request is for.*try again when only one is using \\"everything\\"/;

/** A client that samples: notes each prompt it is shown (as "name: prompt") and answers with its name. */
async function sampler(name: string, shown: string[]): Promise<Client> {
  const client = await hub.connect({ capabilities: { sampling: {} } }, name);
  client.setRequestHandler(CreateMessageRequestSchema, async (r) => {
    shown.push(`${name}: ${(r.params.messages[0].content as { text: string }).text}`);
    return { role: 'assistant', content: { type: 'text', text: `answer from ${name}` }, model: name };
  });
  return client;
}

/** A warning the hub logs for a server, matching `pattern`. */
const warning = (server: string, pattern: RegExp) =>
  hub.waitFor((e) => e.type === 'log' && e.level === 'warn' && e.server === server && pattern.test(e.message), `a warning for ${server}`);

it("never shows one client the sampling prompt of another client's call made at the same time", async () => {
  for (let round = 0; round < 3; round++) {
    const shown: string[] = [];
    const a = await sampler('A', shown);
    const b = await sampler('B', shown);
    const [ra, rb] = await Promise.all([
      a.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'private prompt of A' } }),
      b.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'private prompt of B' } }),
    ]);
    expect(shown.filter((s) => s.startsWith('A:')).join('\n')).not.toContain('of B');
    expect(shown.filter((s) => s.startsWith('B:')).join('\n')).not.toContain('of A');
    // Each call gets its own client's answer, or is refused: never the other's.
    expect(text(ra)).toMatch(/answer from A|cannot tell which of several connected apps/);
    expect(text(rb)).toMatch(/answer from B|cannot tell which of several connected apps/);
    await Promise.all([a.close(), b.close()]);
  }
});

it('refuses a sampling request while another client also has a call in flight there, and says why', async () => {
  const shown: string[] = [];
  const a = await sampler('A', shown);
  const b = await sampler('B', shown);
  let started!: () => void;
  const inFlight = new Promise<void>((resolve) => (started = resolve));
  const long = a.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 1.5, steps: 3 } }, undefined, {
    onprogress: () => started(),
  });
  await inFlight;
  const warned = warning('everything', /cannot tell which of several connected apps/);
  const refused = await b.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'private prompt of B' } });
  expect(text(refused)).toMatch(SEVERAL);
  await warned;
  expect(shown).toEqual([]);
  await long;
  // Alone again: B's call is the only one there, so its sampling goes to B.
  const answered = await b.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'private prompt of B' } });
  expect(text(answered)).toContain('answer from B');
  expect(shown).toEqual(['B: Resource trigger-sampling-request context: private prompt of B']);
  await Promise.all([a.close(), b.close()]);
});

it('refuses a sampling request a server sends while no client has a call there', async () => {
  const shown: string[] = [];
  const a = await sampler('A', shown);
  const warned = warning('one', /no app has a request in progress at "one"/);
  expect(text(await a.callTool({ name: 'one__ask_later', arguments: {} }))).toContain('will ask');
  await warned;
  const result = (await a.callTool({ name: 'one__state', arguments: {} })) as { content: { text: string }[] };
  const state = JSON.parse(result.content[0].text) as { events: string[] };
  expect(state.events).toEqual([expect.stringMatching(/^sampling later refused: .*no app has a request in progress at "one"/)]);
  expect(shown).toEqual([]);
  await a.close();
});

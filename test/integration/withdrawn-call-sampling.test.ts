/**
 * A call its client withdrew (cancelled, timed out, or its session closed) is still worked on by most
 * servers, which then ask for sampling for it. That request is the withdrawn call's client's: it must not
 * reach another client that happens to be the only one calling the server then. Through the real hub,
 * over HTTP and as bridge sessions, with a server that goes on after a cancellation (late-sampler.mjs).
 * Each test has a server of its own: what a session withdrew counts there for a minute.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const SERVERS = ['cancel', 'alone', 'prompt', 'own', 'restart', 'closed', 'timeout'];

let hub: TestHub;
beforeAll(async () => {
  const late = { type: 'stdio', ...nodeServer(fixture('late-sampler.mjs')) };
  const servers = Object.fromEntries(SERVERS.map((id) => [id, id === 'timeout' ? { ...late, timeoutMs: 1000 } : late]));
  hub = await startTestHub({ version: 1, servers });
  await Promise.all(SERVERS.map((id) => hub.waitForStatus(id, 'ready')));
});
afterAll(async () => hub?.stop());

const text = (r: unknown) => (r as { content: { text: string }[] }).content.map((c) => c.text).join('\n');
const WITHDRAWN_ELSEWHERE =
  /refused: .*cannot tell whether this sampling\/createMessage request is for the app now using "\w+" or for a request another app withdrew there/;

/** Makes `client` sample: notes each prompt it is shown (as "name: prompt") and answers with its name as the model. */
function samples(client: Client, name: string, shown: string[]): Client {
  client.setRequestHandler(CreateMessageRequestSchema, async (r) => {
    shown.push(`${name}: ${(r.params.messages[0].content as { text: string }).text}`);
    return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: name };
  });
  return client;
}

const sampler = async (name: string, shown: string[]) => samples(await hub.connect({ capabilities: { sampling: {} } }, name), name, shown);

/** A client connected the way the bridge is (a 'bridge' session), that samples. */
async function bridgeSampler(name: string, shown: string[]): Promise<Client> {
  const [clientSide, hubSide] = InMemoryTransport.createLinkedPair();
  await hub.hub.connectSession(hubSide, 'bridge');
  const client = samples(new Client({ name, version: '1' }, { capabilities: { sampling: {} } }), name, shown);
  await client.connect(clientSide);
  return client;
}

/**
 * `client` calls `server`'s late_sample and withdraws it once the server has started on it (its progress
 * came): it cancels the call, or `close`s its session. Resolves once the hub has ended the call.
 */
async function withdrawnCall(client: Client, server: string, args: Record<string, unknown>, how: 'cancel' | 'close' = 'cancel') {
  const ended = hub.waitFor((e) => e.type === 'call.finished' && e.server === server && e.tool === 'late_sample', `${server} call ended`);
  const abort = new AbortController();
  let started!: () => void;
  const serverStarted = new Promise<void>((resolve) => (started = resolve));
  const call = client.request({ method: 'tools/call', params: { name: `${server}__late_sample`, arguments: args } }, CallToolResultSchema, {
    signal: abort.signal,
    onprogress: () => started(),
  });
  call.catch(() => undefined);
  await serverStarted;
  if (how === 'cancel') abort.abort('the user pressed Esc');
  else await client.close();
  const end = await ended;
  expect(end.type === 'call.finished' && end.action).toBe('cancelled');
}

it("does not show a cancelled call's late sampling request to another client calling that server", async () => {
  const shown: string[] = [];
  const a = await sampler('A', shown);
  const b = await sampler('B', shown);
  await withdrawnCall(a, 'cancel', { prompt: 'secret prompt of A' });
  // B is now the only client with a call in flight there when A's withdrawn call asks for sampling.
  const released = await b.callTool({ name: 'cancel__release', arguments: {} });
  expect(text(released)).toMatch(WITHDRAWN_ELSEWHERE);
  expect(text(released)).toMatch(/try again in \d+ s/);
  expect(shown).toEqual([]);
});

it('refuses the late sampling request of a cancelled call when no other call is in flight there', async () => {
  const shown: string[] = [];
  const a = await sampler('A', shown);
  const warned = hub.waitFor(
    (e) =>
      e.type === 'log' && e.level === 'warn' && e.server === 'alone' && /withdrew that request \(cancelled it, or it timed out\)/.test(e.message),
    'a warning for alone',
  );
  await withdrawnCall(a, 'alone', { prompt: 'secret prompt of A', when: 'cancelled' });
  await warned;
  expect(shown).toEqual([]);
});

it('refuses the late sampling request of a cancelled prompts/get', async () => {
  const shown: string[] = [];
  const a = await sampler('A', shown);
  const warned = hub.waitFor(
    (e) => e.type === 'log' && e.level === 'warn' && e.server === 'prompt' && /withdrew that request/.test(e.message),
    'a warning for prompt',
  );
  const abort = new AbortController();
  let started!: () => void;
  const serverStarted = new Promise<void>((resolve) => (started = resolve));
  const asked = a.getPrompt(
    { name: 'prompt__late_prompt', arguments: { prompt: 'secret prompt of A' } },
    { signal: abort.signal, onprogress: () => started() },
  );
  asked.catch(() => undefined);
  await serverStarted;
  abort.abort('the user pressed Esc');
  await warned;
  expect(shown).toEqual([]);
});

it('passes the late sampling request to the client that cancelled when it is the one calling again', async () => {
  const shown: string[] = [];
  const a = await sampler('A', shown);
  await sampler('B', shown);
  await withdrawnCall(a, 'own', { prompt: 'first prompt of A' });
  const released = await a.callTool({ name: 'own__release', arguments: {} });
  expect(text(released)).toBe('sampled by A');
  // And its own new sampling goes to it as before.
  expect(text(await a.callTool({ name: 'own__sample_now', arguments: { prompt: 'second prompt of A' } }))).toBe('sampled by A');
  expect(shown).toEqual(['A: first prompt of A', 'A: second prompt of A']);
});

it("forgets a cancelled call once its server restarted: another client's sampling goes to it", async () => {
  const shown: string[] = [];
  const a = await sampler('A', shown);
  const b = await sampler('B', shown);
  await withdrawnCall(a, 'restart', { prompt: 'secret prompt of A' });
  const ready = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'restart' && e.status === 'ready', 'restart ready again');
  await hub.api('upstreams.restart', { id: 'restart' });
  await ready;
  expect(text(await b.callTool({ name: 'restart__sample_now', arguments: { prompt: 'prompt of B' } }))).toBe('sampled by B');
  expect(shown).toEqual(['B: prompt of B']);
});

it('bridge: does not show the late sampling request of a call whose client disconnected to another client', async () => {
  const shown: string[] = [];
  // A bridge that goes away closes its session (an HTTP client's session stays until it is deleted).
  const a = await bridgeSampler('A', shown);
  const b = await sampler('B', shown);
  await withdrawnCall(a, 'closed', { prompt: 'secret prompt of A' }, 'close');
  const released = await b.callTool({ name: 'closed__release', arguments: {} });
  expect(text(released)).toMatch(WITHDRAWN_ELSEWHERE);
  expect(shown).toEqual([]);
});

it("bridge: does not show a timed-out call's late sampling request to another client calling that server", async () => {
  const shown: string[] = [];
  const a = await bridgeSampler('A', shown);
  const b = await bridgeSampler('B', shown);
  const timedOut = await a.callTool({ name: 'timeout__late_sample', arguments: { prompt: 'secret prompt of A' } });
  expect(text(timedOut)).toMatch(/did not answer "late_sample" within 1 s \(timeout\)/);
  const released = await b.callTool({ name: 'timeout__release', arguments: {} });
  expect(text(released)).toMatch(WITHDRAWN_ELSEWHERE);
  expect(shown).toEqual([]);
  await Promise.all([a.close(), b.close()]);
});

/**
 * Requests an upstream sends a client (sampling here) go to the client whose request the upstream is
 * serving, through the real hub and its HTTP endpoint: during tools/call, prompts/get, resources/read
 * and completion/complete. A client that cannot answer gets the upstream an error; the request is never
 * shown to another client. Over HTTP the request goes out on the stream of the client's own request, so
 * a client that opened no GET stream still receives it. Roots follow the same rule: roots/list goes to the
 * calling client only, never to another that has roots (sampling-between-clients.test.ts and
 * roots-between-clients.test.ts cover several clients at once, and requests outside any call).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession } from '../support/raw-http-session.js';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({
    mcpServers: {
      fx: nodeServer(fixture('fixture-server.mjs')),
      sub: nodeServer(fixture('subscription-server.mjs'), ['sub']),
    },
  });
  await Promise.all(['fx', 'sub'].map((id) => hub.waitForStatus(id, 'ready')));
});
afterAll(async () => hub?.stop());

const textOf = (r: { content: unknown }) => (r.content as { text: string }[])[0].text;

/** A client that samples, noting its name in `who` and answering with it. */
async function sampler(name: string, who: string[]): Promise<Client> {
  const client = await hub.connect({ capabilities: { sampling: {} } }, name);
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    who.push(`${name}: ${JSON.stringify(req.params.messages[0].content)}`);
    return { role: 'assistant', model: 'm', content: { type: 'text', text: name } };
  });
  return client;
}

describe('a request from an upstream during a tools/call', () => {
  it('is refused when the calling client cannot sample, and never shown to another client', async () => {
    const caller = await hub.connect({ capabilities: {} }, 'no-sampling');
    const who: string[] = [];
    await sampler('bystander', who);
    const r = (await caller.callTool({ name: 'fx__sample', arguments: { prompt: 'secret of the caller' } })) as CallToolResult;
    expect(who).toEqual([]);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/"no-sampling" does not support sampling/);
  });
});

describe('a request from an upstream during a request other than tools/call', () => {
  it('is refused when the client getting the prompt cannot sample, and never shown to another client', async () => {
    const caller = await hub.connect({ capabilities: {} }, 'no-sampling-prompt');
    const who: string[] = [];
    await sampler('bystander-of-prompt', who);
    await expect(caller.getPrompt({ name: 'sub__ask' })).rejects.toThrow(/"no-sampling-prompt" does not support sampling/);
    expect(who).toEqual([]);
  });

  it('goes to the client whose prompts/get, resources/read or completion/complete it serves', async () => {
    const who: string[] = [];
    const asker = await sampler('asker', who);
    const other = await sampler('other', who);
    // The other client was active last (though the asker's request, tracked, counts as activity too).
    await other.listTools();
    const prompt = await asker.getPrompt({ name: 'sub__ask' });
    expect(JSON.stringify(prompt.messages)).toContain('sampled asker');
    const read = await asker.readResource({ uri: 'mem://sub/ask' });
    expect(JSON.stringify(read.contents)).toContain('sampled asker');
    await other.listTools();
    const done = await asker.complete({ ref: { type: 'ref/prompt', name: 'sub__ask' }, argument: { name: 'topic', value: 'x' } });
    expect(done.completion.values).toEqual(['sampled asker']);
    expect(who.map((w) => w.split(':')[0])).toEqual(['asker', 'asker', 'asker']);
  });

  it('reaches a client with no GET stream open, on the stream of its prompts/get', async () => {
    const raw = await RawHttpSession.open(hub.url, hub.token, 'raw-sampler', { sampling: {} });
    const res = await raw.post({ jsonrpc: '2.0', id: 2, method: 'prompts/get', params: { name: 'sub__ask' } });
    const messages = sseMessages(res);
    const asked = await messages.next();
    expect(asked.value).toMatchObject({ method: 'sampling/createMessage' });
    const answered = await raw.post({
      jsonrpc: '2.0',
      id: (asked.value as { id: number }).id,
      result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'raw' } },
    });
    await answered.text();
    expect(answered.status).toBe(202);
    const result = await messages.next();
    expect(result.value).toMatchObject({ id: 2, result: { messages: [{ content: { text: 'sampled raw' } }] } });
    await messages.return(undefined);
  });
});

describe('roots/list from an upstream during a call', () => {
  it('goes to the calling client', async () => {
    const caller = await hub.connect({ capabilities: { roots: { listChanged: true } } }, 'has-roots');
    caller.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work/a', name: 'a' }] }));
    const r = (await caller.callTool({ name: 'fx__roots', arguments: {} })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(textOf(r))).toEqual([{ uri: 'file:///work/a', name: 'a' }]);
  });

  it('is refused, saying what to do, when the calling client shares no folders, and never sent to one that does', async () => {
    const asked: string[] = [];
    const withRoots = await hub.connect({ capabilities: { roots: { listChanged: true } } }, 'bystander-with-roots');
    withRoots.setRequestHandler(ListRootsRequestSchema, async () => (asked.push('bystander'), { roots: [{ uri: 'file:///work/b', name: 'b' }] }));
    const caller = await hub.connect({ capabilities: {} }, 'no-roots');
    const r = (await caller.callTool({ name: 'fx__roots', arguments: {} })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/"no-roots" does not share its folders \(roots\).*use a client that shares its folders/);
    expect(asked).toEqual([]);
  });
});

/** The JSON-RPC messages of an SSE response, one by one as they arrive. */
async function* sseMessages(res: Response): AsyncGenerator<Record<string, unknown>, void, undefined> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (data) yield JSON.parse(data) as Record<string, unknown>;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The chat client reads an endpoint's answer in pieces and stops past its limit (8 MiB): an endpoint
 * whose body never ends, or that declares a huge Content-Length, gets "too large" without the client
 * holding the body in memory until the timeout.
 */
import { afterAll, expect, it } from 'vitest';
import { createChatClient } from '../../electron/core/compress/chat-client.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';

let llm: FakeOpenAI | undefined;
afterAll(async () => llm?.close());

it('stops reading a body that never ends soon after the limit, and says it is too large', async () => {
  llm = await startFakeOpenAI({ kind: 'flood', chunkBytes: 1024 * 1024 });
  const client = createChatClient({ baseUrl: llm.baseUrl, model: 'm', timeoutMs: 4_000 });
  const started = Date.now();
  const result = await client.complete({ messages: [{ role: 'user', content: 'x' }], maxTokens: 100 });
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.kind).toBe('bad_response');
  expect(result.error.message).toMatch(/too large/);
  // The limit is 8 MiB: the socket's buffers let the server send a little more, never the whole timeout's worth.
  expect(llm.bytesSent).toBeLessThan(64 * 1024 * 1024);
  expect(Date.now() - started).toBeLessThan(3_000);
});

it('refuses a declared Content-Length over the limit without reading the body', async () => {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      // 2 MiB in all: a client that ignores the header reads it all and finds no JSON.
      if (++pulled > 2048) controller.close();
      else controller.enqueue(new Uint8Array(1024));
    },
  });
  const fetch = async () => new Response(body, { status: 200, headers: { 'content-length': String(1024 * 1024 * 1024) } });
  const client = createChatClient({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, { fetch });
  const result = await client.complete({ messages: [{ role: 'user', content: 'x' }], maxTokens: 100 });
  expect(result.ok).toBe(false);
  if (!result.ok) expect(result.error.message).toMatch(/too large/);
  expect(pulled).toBeLessThanOrEqual(1);
});

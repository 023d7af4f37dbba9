/**
 * Compression against a real HTTP server speaking the chat-completions API (test/fixtures/
 * fake-llm-server.mjs, deterministic answers): the request on the wire, the header, strategies, retry
 * escalation, the cache, masking before the model, and every failure coming back as `{ok: false}` so the
 * hub can spill instead.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import {
  compressResult,
  CompressionBudget,
  CompressionCache,
  createChatClient,
  createCompressor,
  testEndpoint,
} from '../../electron/core/compress/index.js';
import type { ChatEndpointConfig, CompressInput } from '../../electron/core/compress/index.js';
import { createMasker } from '../../electron/core/pii/index.js';
import { spawnUntil, type Started } from '../support/processes.js';

const SERVER = fileURLToPath(new URL('../fixtures/fake-llm-server.mjs', import.meta.url));
const KEY = 'sk-test-123';
const counter = new TokenCounter();

let server: Started;
let baseUrl: string;
let root: string;

interface Recorded {
  headers: { authorization: string | null; 'content-type': string | null };
  body: { model: string; max_tokens: number; messages: Array<{ role: string; content: string }>; stream?: boolean };
}
const recorded = async (): Promise<Recorded[]> => (await fetch(`${root}/requests`)).json() as Promise<Recorded[]>;
const config = (model = 'fake-model', extra: Partial<ChatEndpointConfig> = {}): ChatEndpointConfig => ({ baseUrl, model, apiKey: KEY, ...extra });

const prose = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ');
let proseTokens: number;
const input = (extra: Partial<CompressInput> = {}): CompressInput => ({
  text: prose,
  contentType: 'text',
  tool: 'docs__read',
  maxOutputTokens: 200,
  originalTokens: proseTokens,
  handle: 'abcd2345efgh',
  readTool: 'spillway__read_result',
  ...extra,
});

beforeAll(async () => {
  server = await spawnUntil(process.execPath, [SERVER, '--port', '0', '--api-key', KEY], /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/);
  baseUrl = server.match[1]!;
  root = baseUrl.replace(/\/v1$/, '');
  proseTokens = await counter.count(prose);
});

afterAll(async () => {
  await server?.stop();
  await counter.close();
});

beforeEach(async () => {
  await fetch(`${root}/requests`, { method: 'DELETE' });
  await fetch(`${root}/control`, { method: 'POST', body: JSON.stringify({ mode: 'normal' }) });
});

describe('compressResult against a chat-completions server', () => {
  it('sends model, messages and max_tokens with the Bearer key, and heads the answer', async () => {
    const out = await compressResult(input(), { client: createChatClient(config()), counter });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const [header, hint, rule, body, cut] = out.text.split('\n');
    expect(header).toBe(
      `[Compressed: ${proseTokens.toLocaleString('en-US')} → ${out.bodyTokens} tokens, strategy: text, original: spill abcd2345efgh]`,
    );
    expect(proseTokens).toBeGreaterThan(1000);
    expect(hint).toContain('spillway__read_result');
    expect(hint).toContain('"handle":"abcd2345efgh"');
    expect(rule).toBe('---');
    // The fake answers "[strategy] " + the first max_tokens/4 words of what it was sent.
    expect(body).toBe(`[text] ${prose.split(' ').slice(0, 50).join(' ')}`);
    // The fake stops at max_tokens and says so (finish_reason "length"): the summary says it was cut.
    expect(cut).toBe('… (cut at 200 tokens)');
    expect(out.bodyTokens).toBe(await counter.count(`${body}\n${cut}`));
    expect(out.tokens).toBe(await counter.count(out.text));
    expect(out).toMatchObject({ strategy: 'text', maxOutputTokens: 200, cached: false });
    expect(out.latencyMs).toBeGreaterThanOrEqual(0);

    const [request] = await recorded();
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.body).toMatchObject({ model: 'fake-model', max_tokens: 200, stream: false });
    expect(request!.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(request!.body.messages[0]!.content).toContain('Strategy: text.');
    expect(request!.body.messages[1]!.content).toBe(prose);
  });

  it('detects the strategy when no content type is given, and sends the goal and instructions', async () => {
    const json = JSON.stringify({ items: Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'] })) }, null, 1);
    const out = await compressResult(
      input({
        text: json,
        contentType: undefined,
        originalTokens: await counter.count(json),
        goal: 'ids of items tagged b',
        customInstructions: 'Keep ids.',
      }),
      { client: createChatClient(config()), counter },
    );
    expect(out.ok && out.strategy).toBe('json');
    expect(out.ok && out.text).toMatch(/^\[Compressed: [\d,]+ → [\d,]+ tokens, strategy: json, original: spill abcd2345efgh\]\n/);
    expect(out.ok && out.text).toContain('\n[json] {');
    const [request] = await recorded();
    expect(request!.body.messages[0]!.content).toContain('What the assistant needs from this result: ids of items tagged b');
    expect(request!.body.messages[0]!.content).toContain('Instructions for this tool: Keep ids.');
  });

  it('sends only the start of a huge result and says so', async () => {
    const out = await compressResult(input(), { client: createChatClient(config()), counter, maxInputChars: 1000 });
    expect(out.ok).toBe(true);
    const [request] = await recorded();
    expect(request!.body.messages[1]!.content).toBe(prose.slice(0, 1000));
    expect(request!.body.messages[0]!.content).toContain(`Only the first 1000 of ${prose.length} characters are shown`);
  });

  it('masked text reaches the model with placeholders, and the caller gets the originals back', async () => {
    const text = 'Customer jane.doe@example.com (phone +44 20 7946 0958, card 4111 1111 1111 1111) wrote to bob@corp.example.org. ' + prose;
    const out = await compressResult(input({ text, originalTokens: await counter.count(text) }), {
      client: createChatClient(config()),
      counter,
      masker: createMasker(),
    });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.masked).toEqual({ EMAIL: 2, PHONE: 1, CREDIT_CARD: 1 });
    const sent = JSON.stringify(await recorded());
    for (const original of ['jane.doe@example.com', '7946 0958', '4111 1111 1111 1111', 'bob@corp.example.org']) expect(sent).not.toContain(original);
    expect(sent).toContain('Customer [EMAIL_1] (phone [PHONE_1], card [CREDIT_CARD_1]) wrote to [EMAIL_2].');
    expect(out.text).toContain(
      '[text] Customer jane.doe@example.com (phone +44 20 7946 0958, card 4111 1111 1111 1111) wrote to bob@corp.example.org.',
    );
  });

  it("masks the calling model's goal with the result's placeholders", async () => {
    const text = 'Customer jane.doe@example.com wrote. ' + prose;
    const goal = 'what jane.doe@example.com asked, and anything for carol@example.net';
    const out = await compressResult(input({ text, goal, originalTokens: await counter.count(text) }), {
      client: createChatClient(config()),
      counter,
      masker: createMasker(),
    });
    expect(out.ok).toBe(true);
    const sent = JSON.stringify(await recorded());
    expect(sent).not.toContain('jane.doe@example.com');
    expect(sent).not.toContain('carol@example.net');
    const [request] = await recorded();
    expect(request!.body.messages[0]!.content).toContain(
      'What the assistant needs from this result: what [EMAIL_1] asked, and anything for [EMAIL_2]',
    );
  });

  it('a second identical call is answered from the cache: no second request', async () => {
    const deps = { client: createChatClient(config()), counter, cache: new CompressionCache() };
    const first = await compressResult(input(), deps);
    const second = await compressResult(input(), deps);
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    expect(second.cached).toBe(true);
    expect(second.latencyMs).toBeNull();
    expect(second.text).toBe(first.text);
    expect(await recorded()).toHaveLength(1);
    // A different goal is a different question.
    await compressResult(input({ goal: 'only the last words' }), deps);
    expect(await recorded()).toHaveLength(2);
  });

  it('cuts an answer that ignores max_tokens down to the budget', async () => {
    const out = await compressResult(input({ maxOutputTokens: 100 }), { client: createChatClient(config('fake-verbose')), counter });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.text).toContain('… (cut at 100 tokens)');
    expect(out.bodyTokens).toBeLessThanOrEqual(100 + 12);
  });
});

describe('retry escalation', () => {
  it('a repeat call within the window asks for a larger max_tokens; after the window the base budget hits the cache', async () => {
    let now = 1_000_000;
    const compressor = createCompressor({
      client: createChatClient(config()),
      counter,
      budget: new CompressionBudget({ now: () => now, windowMs: 60_000 }),
      cache: new CompressionCache({ now: () => now }),
    });
    const first = await compressor.compress(input());
    now += 5_000;
    const second = await compressor.compress(input());
    expect(first).toMatchObject({ ok: true, attempt: 1, maxOutputTokens: 200 });
    expect(second).toMatchObject({ ok: true, attempt: 2, maxOutputTokens: 400, cached: false });
    expect((await recorded()).map((r) => r.body.max_tokens)).toEqual([200, 400]);
    // The larger budget buys a longer answer.
    expect(second.ok && first.ok && second.bodyTokens > first.bodyTokens).toBe(true);

    now += 10 * 60_000;
    const third = await compressor.compress(input());
    expect(third).toMatchObject({ ok: true, attempt: 1, maxOutputTokens: 200, cached: true });
    expect(await recorded()).toHaveLength(2);
  });

  it('streaks are per tool', async () => {
    const now = 5_000;
    const compressor = createCompressor({ client: createChatClient(config()), counter, budget: new CompressionBudget({ now: () => now }) });
    await compressor.compress(input({ tool: 'a__x' }));
    await compressor.compress(input({ tool: 'b__y' }));
    await compressor.compress(input({ tool: 'a__x' }));
    expect((await recorded()).map((r) => r.body.max_tokens)).toEqual([200, 200, 400]);
  });
});

describe('failures come back as errors, never thrown', () => {
  it('timeout: a model that never answers', async () => {
    const out = await compressResult(input(), { client: createChatClient(config('fake-slow', { timeoutMs: 300 })), counter });
    expect(out).toEqual({ ok: false, error: { kind: 'timeout', message: 'no answer from the model within 300 ms' } });
    expect(await recorded()).toHaveLength(1);
  });

  it('cancelled by the caller', async () => {
    const controller = new AbortController();
    const pending = compressResult(input(), { client: createChatClient(config('fake-slow')), counter, signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual({ ok: false, error: { kind: 'aborted', message: 'the request was cancelled' } });
  });

  it('HTTP 500, by model name and by the control endpoint', async () => {
    const out = await compressResult(input(), { client: createChatClient(config('fake-error')), counter });
    expect(out).toEqual({
      ok: false,
      error: { kind: 'http', status: 500, message: 'the endpoint answered HTTP 500: The server had an error while processing your request.' },
    });
    await fetch(`${root}/control`, { method: 'POST', body: JSON.stringify({ mode: 'error' }) });
    const again = await compressResult(input(), { client: createChatClient(config()), counter });
    expect(!again.ok && again.error.status).toBe(500);
  });

  it('a wrong API key is a 401 that names the problem, without the key', async () => {
    const out = await compressResult(input(), { client: createChatClient(config('fake-model', { apiKey: 'sk-wrong-999' })), counter });
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error).toMatchObject({ kind: 'http', status: 401 });
    expect(out.error.message).toContain('Incorrect API key provided.');
    expect(out.error.message).not.toContain('sk-wrong-999');
  });

  it('a body that is not JSON, an empty answer, an answer no smaller than the original', async () => {
    const garbage = await compressResult(input(), { client: createChatClient(config('fake-garbage')), counter });
    expect(!garbage.ok && garbage.error.kind).toBe('bad_response');
    expect(!garbage.ok && garbage.error.message).toContain('not JSON: <html>502 Bad Gateway</html>');
    const empty = await compressResult(input(), { client: createChatClient(config('fake-empty')), counter });
    expect(!empty.ok && empty.error.kind).toBe('empty');
    const larger = await compressResult(input({ originalTokens: 20 }), { client: createChatClient(config()), counter });
    expect(!larger.ok && larger.error.kind).toBe('not_smaller');
  });

  it('nothing listening: a network error', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const out = await compressResult(input(), { client: createChatClient({ baseUrl: `http://127.0.0.1:${closedPort}/v1`, model: 'm' }), counter });
    expect(out).toEqual({ ok: false, error: { kind: 'network', message: `cannot reach 127.0.0.1:${closedPort}: ECONNREFUSED` } });
  });

  it('a bad configuration never sends anything', async () => {
    const bad = await compressResult(input(), { client: createChatClient({ baseUrl: 'localhost:1234', model: 'm' }), counter });
    expect(!bad.ok && bad.error.kind).toBe('config');
    const noModel = await compressResult(input(), { client: createChatClient(config(' ')), counter });
    expect(!noModel.ok && noModel.error).toEqual({ kind: 'config', message: 'no model is set' });
    expect(await recorded()).toHaveLength(0);
  });
});

describe('testEndpoint (the Settings "Test" button)', () => {
  it('reports latency and the model that answered', async () => {
    const check = await testEndpoint(config());
    expect(check).toEqual({ ok: true, latencyMs: expect.any(Number), model: 'fake-model' });
    const [request] = await recorded();
    expect(request!.body.max_tokens).toBe(16);
  });

  it('reports the error of a failing endpoint', async () => {
    expect(await testEndpoint(config('fake-error'))).toMatchObject({ ok: false, model: 'fake-error', error: { kind: 'http', status: 500 } });
    expect(await testEndpoint(config('fake-model', { apiKey: null }))).toMatchObject({ ok: false, error: { kind: 'http', status: 401 } });
    expect(await testEndpoint(config('fake-slow', { timeoutMs: 200 }))).toMatchObject({ ok: false, error: { kind: 'timeout' } });
  });
});

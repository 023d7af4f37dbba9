/**
 * LLM compression through the hub's real endpoint (issue 8): an SDK client on the HTTP endpoint, the
 * recording fixture as a real stdio upstream, and test/fixtures/fake-llm-server.mjs as the model (the
 * real chat-completions API, deterministic answers). Header and read-back of the original, retry
 * escalation, the compression cache, the goal and bypass fields, fallback to spill, the secret API key
 * and the Settings "Test" button.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

const KEY = 'sk-compress-test-1';
const HEADER = /^\[Compressed: ~?[\d,]+ → [\d,]+ tokens, strategy: json, original: spill ([a-z0-9]+)\]/;

interface LlmRequest {
  headers: { authorization: string | null };
  body: { model: string; max_tokens: number; messages: Array<{ role: string; content: string }> };
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

function metaOf(result: CallToolResult): Record<string, unknown> {
  return (result._meta ?? {}) as Record<string, unknown>;
}

describe('compression through the endpoint', () => {
  let llm: Started;
  let llmRoot: string;
  let t: TestHub;
  let client: Client;
  let dir: string;
  let recordFile: string;

  const requests = async (): Promise<LlmRequest[]> => (await fetch(`${llmRoot}/requests`)).json() as Promise<LlmRequest[]>;
  const recorded = async (): Promise<Array<{ tool: string; arguments: Record<string, unknown> }>> =>
    (await readFile(recordFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  /** Calls a tool and returns its result with the hub's call.finished event. */
  const callWithEvent = async (name: string, args: Record<string, unknown>) => {
    const finished = t.waitFor((e) => e.type === 'call.finished' && e.exposedName === name, `call.finished ${name}`);
    const result = await call(name, args);
    return { result, event: (await finished) as Extract<HubEvent, { type: 'call.finished' }> };
  };
  const setCompression = async (compression: Record<string, unknown>) => {
    const res = await t.api('settings.set', { compression });
    expect(res).toMatchObject({ ok: true });
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-compress-'));
    recordFile = join(dir, 'calls.jsonl');
    llm = await spawnUntil(NODE, [fixture('fake-llm-server.mjs'), '--port', '0', '--api-key', KEY], /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/);
    const baseUrl = llm.match[1]!;
    llmRoot = baseUrl.replace(/\/v1$/, '');
    t = await startTestHub({
      version: 1,
      servers: { rec: { type: 'stdio', command: NODE, args: [fixture('recording-server.mjs'), '--record', recordFile] } },
      settings: { port: 0, compression: { baseUrl, model: 'fake-model', apiKey: KEY } },
      // Escalation doubles 8,000 to the 16,000-token ceiling, so a third call asks for what the second did.
      policies: { tools: { rec: { big_json: { action: 'compress', thresholdTokens: 500, compressMaxTokens: 8000 } } } },
    });
    await t.waitForStatus('rec', 'ready');
    client = await t.connect();
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    await llm?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('condenses with a header naming the spill handle; the original reads back; escalation; cache', async () => {
    // The ledger records a call once its exact token counts are made (off the request path).
    const ledgered = new Promise<{ action: string; tokensUpstream: number; tokensDelivered: number }>((resolve) => {
      const off = t.hub.ledger.subscribe((update) => {
        if (update.record.kind === 'call' && update.record.tool === 'big_json') {
          off();
          resolve(update.record);
        }
      });
    });
    const first = await callWithEvent('rec__big_json', { count: 2000 });
    const text = textOf(first.result);
    const handle = HEADER.exec(text)?.[1];
    expect(handle, text.slice(0, 300)).toBeTruthy();
    expect(text).toContain('[json] {'); // the fake model's answer, after the header
    expect(metaOf(first.result)).toMatchObject({ 'spillway/handle': handle, 'spillway/compressed': true });
    expect(first.result.content.some((c) => c.type === 'resource_link')).toBe(true);
    expect(first.event).toMatchObject({ action: 'compress', handle });
    expect(first.event.tokensDelivered).toBeLessThan(first.event.tokensUpstream!);

    // The original is whole in the spill store, including what the summary left out.
    const read = await call('spillway__read_result', { handle, op: 'grep', pattern: '"item-1999"' });
    expect(textOf(read)).toContain('"name": "item-1999"');

    let sent = await requests();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent[0]!.body.max_tokens).toBe(8000);
    expect(sent[0]!.body.messages[0]!.content).toContain('Strategy: json');

    // A repeat within the window: the model is asked for a larger summary.
    const second = await call('rec__big_json', { count: 2000 });
    expect(textOf(second)).toMatch(HEADER);
    sent = await requests();
    expect(sent).toHaveLength(2);
    expect(sent[1]!.body.max_tokens).toBeGreaterThan(sent[0]!.body.max_tokens);

    // The third asks for the same (capped) budget: served from the compression cache, no new request.
    const third = await callWithEvent('rec__big_json', { count: 2000 });
    expect(textOf(third.result)).toMatch(HEADER);
    expect(metaOf(third.result)['spillway/compression']).toMatchObject({ cached: true });
    expect(third.event.action).toBe('compress');
    expect(await requests()).toHaveLength(2);
    // A cached summary still names the original of this call.
    expect(HEADER.exec(textOf(third.result))![1]).toBe(metaOf(third.result)['spillway/handle']);

    const record = await ledgered;
    expect(record.action).toBe('compress');
    expect(record.tokensDelivered).toBeLessThan(record.tokensUpstream);
  });

  it('adds _spillway_goal and _spillway_bypass to compressed tools only; the goal reaches the model, never the upstream', async () => {
    const tools = (await client.listTools()).tools;
    const big = tools.find((x) => x.name === 'rec__big_json')!;
    const echo = tools.find((x) => x.name === 'rec__echo')!;
    expect(Object.keys(big.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['_spillway_goal', '_spillway_bypass', 'count']));
    expect(Object.keys(echo.inputSchema.properties ?? {})).not.toContain('_spillway_goal');

    const before = (await requests()).length;
    const result = await call('rec__big_json', { count: 1500, _spillway_goal: 'the ids of open items' });
    expect(textOf(result)).toMatch(HEADER);
    const sent = await requests();
    expect(sent).toHaveLength(before + 1);
    expect(sent.at(-1)!.body.messages[0]!.content).toContain('What the assistant needs from this result: the ids of open items');
    const upstreamSaw = (await recorded()).at(-1)!;
    expect(upstreamSaw).toEqual({ tool: 'big_json', arguments: { count: 1500 } });

    // Bypass: the usual spilled preview, no model request, and the field is not forwarded either.
    const bypassed = await call('rec__big_json', { count: 1500, _spillway_bypass: true });
    expect(textOf(bypassed)).toMatch(/^\[Spillway\] Result too large/);
    expect(metaOf(bypassed)['spillway/handle']).toBeTruthy();
    expect(await requests()).toHaveLength(before + 1);
    expect((await recorded()).at(-1)!.arguments).toEqual({ count: 1500 });
  });

  it('spills instead when the model fails, times out or is not set up', async () => {
    await setCompression({ model: 'fake-error' });
    const failed = await callWithEvent('rec__big_json', { count: 1200 });
    expect(textOf(failed.result)).toMatch(/^\[Spillway\] Result too large/);
    expect(metaOf(failed.result)['spillway/handle']).toBeTruthy();
    expect(failed.event).toMatchObject({ action: 'spill', level: 'warn' });
    expect(failed.event.error).toMatch(/compression failed \(http\).*HTTP 500/);

    await setCompression({ model: 'fake-slow', timeoutMs: 300 });
    const slow = await callWithEvent('rec__big_json', { count: 1100 });
    expect(textOf(slow.result)).toMatch(/^\[Spillway\] Result too large/);
    expect(slow.event.error).toMatch(/compression failed \(timeout\)/);
    const handle = metaOf(slow.result)['spillway/handle'] as string;
    expect(textOf(await call('spillway__read_result', { handle, op: 'stat' }))).not.toMatch(/unknown|expired/i);

    await setCompression({ baseUrl: '' });
    const unset = await callWithEvent('rec__big_json', { count: 1000 });
    expect(textOf(unset.result)).toMatch(/^\[Spillway\] Result too large/);
    expect(unset.event.error).toMatch(/compression is not set up/);

    await setCompression({ baseUrl: `${llmRoot}/v1`, model: 'fake-model', timeoutMs: 30_000 });
    expect(textOf(await call('rec__big_json', { count: 1000 }))).toMatch(HEADER);
  });

  it('keeps the API key secret: masked by settings.get, kept when sent back masked', async () => {
    const got = await t.api<{ compression: { apiKey?: string; model?: string } }>('settings.get');
    expect(got.value!.compression).toMatchObject({ apiKey: '***', model: 'fake-model' });
    const set = await t.api<{ compression: { apiKey?: string } }>('settings.set', { compression: { apiKey: '***', defaultMaxOutputTokens: 900 } });
    expect(set.value!.compression.apiKey).toBe('***');
    expect(t.hub.settings.compression).toMatchObject({ apiKey: KEY, defaultMaxOutputTokens: 900 });
    expect(await t.api('compression.test')).toMatchObject({ ok: true, value: { ok: true, model: 'fake-model' } });

    const refused = await t.api('settings.set', { compression: { baseUrl: 'ftp://example.com' } });
    expect(refused).toMatchObject({ ok: false, code: 'invalid' });
    expect(refused.field).toMatch(/^compression\.baseUrl|^settings\.compression\.baseUrl/);
  });

  it('compression.test reports latency, or why it failed', async () => {
    const ok = await t.api<{ ok: boolean; latencyMs: number; model?: string }>('compression.test');
    expect(ok.value).toMatchObject({ ok: true, model: 'fake-model' });
    expect(ok.value!.latencyMs).toBeGreaterThanOrEqual(0);

    await setCompression({ model: 'fake-error' });
    const failed = await t.api<{ ok: boolean; error?: string }>('compression.test');
    expect(failed.value).toMatchObject({ ok: false });
    expect(failed.value!.error).toMatch(/HTTP 500/);

    await setCompression({ model: 'fake-model', apiKey: 'sk-wrong' });
    expect((await t.api<{ ok: boolean; error?: string }>('compression.test')).value!.error).toMatch(/HTTP 401/);
    await setCompression({ apiKey: KEY });
  });
});

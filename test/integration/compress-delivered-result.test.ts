/**
 * What a compressed call delivers and records, through the hub: never more tokens than the original, the
 * image kept with the original named, a summary of the start said to be one, the retry budget raised only
 * for a repeat of the same call by the same session, no TOON saving credited for TOON not delivered, and a
 * spill folder that cannot be written falling back like a spilled call instead of failing the call. The
 * model is a small chat-completions server in the test, answering what each case needs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';

/** What the model answers, given the user message (the result's text). */
let answer: (user: string) => string = () => 'short';
/** The user messages the model was sent. */
const sent: string[] = [];

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const compressionOf = (r: CallToolResult) => (r._meta as Record<string, { attempt: number; maxOutputTokens: number }>)['spillway/compression'];

describe('what a compressed call delivers', () => {
  let llm: Server;
  let t: TestHub;
  let client: Client;

  beforeAll(async () => {
    llm = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; messages: Array<{ role: string; content: string }> };
        const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
        sent.push(user);
        const message = { role: 'assistant', content: answer(user) };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'c', object: 'chat.completion', model: body.model, choices: [{ index: 0, message, finish_reason: 'stop' }] }));
      });
    });
    await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;
    const compress = { action: 'compress', thresholdTokens: 500 };
    t = await startTestHub({
      version: 1,
      servers: { cc: { type: 'stdio', command: NODE, args: [fixture('compress-cases-server.mjs')] } },
      settings: { port: 0, compression: { baseUrl, model: 'm' } },
      policies: { tools: { cc: { table: compress, words: { ...compress, compressMaxTokens: 4000 }, with_image: compress } } },
    });
    await t.waitForStatus('cc', 'ready');
    client = await t.connect();
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    llm?.close();
  });

  const call = async (name: string, args: Record<string, unknown> = {}, from: Client = client) => {
    const finished = t.waitFor((e) => e.type === 'call.finished' && e.exposedName === name, `call.finished ${name}`);
    const result = (await from.callTool({ name, arguments: args })) as CallToolResult;
    return { result, event: (await finished) as Extract<HubEvent, { type: 'call.finished' }> };
  };
  /** The ledger's record of the next call of `tool`. */
  const nextRecord = (tool: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const off = t.hub.ledger.subscribe((update) => {
        if (update.record.kind === 'call' && update.record.tool === tool) {
          off();
          resolve(update.record as unknown as Record<string, unknown>);
        }
      });
    });

  it('credits no TOON saving to a compressed call: the summary is delivered, not the TOON preview', async () => {
    answer = () => 'ids 0-399, statuses open and closed';
    const recorded = nextRecord('table');
    const { result, event } = await call('cc__table', { n: 400 });
    expect(event.action).toBe('compress');
    expect(textOf(result)).toMatch(/^\[Compressed: /);
    const record = await recorded;
    expect(record.action).toBe('compress');
    expect(record.tokensSavedByEncoding).toBeUndefined();
  });

  it('delivers the spilled result when the summary with its header is no smaller than the original', async () => {
    // Almost the whole text back: the summary alone is just under the original, with the header over it.
    answer = (user) => user.split(' ').slice(0, -1).join(' ');
    const { result, event } = await call('cc__words', { words: 700 });
    expect(event.tokensDelivered!).toBeLessThan(event.tokensUpstream!);
    expect(event.action).toBe('spill');
    expect(textOf(result)).not.toMatch(/^\[Compressed: /);
  });

  it('names the binary blocks kept with the original, as the spilled answer does', async () => {
    answer = () => 'lines 0 to 2999';
    const { result, event } = await call('cc__with_image');
    expect(event.action).toBe('compress');
    const handle = (result._meta as Record<string, unknown>)['spillway/handle'] as string;
    expect(textOf(result)).toContain(`1 binary block(s) (image/png) are kept with it: resources/read spillway://spill/${handle}`);
  });

  it('says when the model summarised only the start of the result', async () => {
    answer = () => 'word0 to word40000';
    sent.length = 0;
    const { result, event } = await call('cc__words', { words: 100_000 });
    expect(event.action).toBe('compress');
    const whole = 988_889; // 100,000 words "word<i>" and the spaces between them
    expect(sent[0]!.length).toBeLessThan(whole);
    const head = textOf(result).split('\n---\n')[0]!;
    expect(head).toContain(`a summary of the first 400,000 of 988,889 characters`);
    expect(head).toContain('"op":"read","offset":400000');
  });

  it('raises the budget only when the same session repeats the same call', async () => {
    answer = () => 'short';
    for (const words of [3000, 3100, 3200]) {
      const { result } = await call('cc__words', { words });
      expect(compressionOf(result)).toMatchObject({ attempt: 1, maxOutputTokens: 4000 });
    }
    // The same arguments again (a goal of its own does not make it another call): a retry, with more room.
    const again = await call('cc__words', { words: 3200, _spillway_goal: 'the last words' });
    expect(compressionOf(again.result)).toMatchObject({ attempt: 2, maxOutputTokens: 8000 });
    // Another app's first call is not a retry of this one's.
    const other = await t.connect(undefined, 'other-app');
    const first = await call('cc__words', { words: 3200 }, other);
    expect(compressionOf(first.result)).toMatchObject({ attempt: 1, maxOutputTokens: 4000 });
  });

  // Last: it leaves the spill folder unusable.
  it('falls back like a spilled call when the original cannot be kept, instead of failing the call', async () => {
    answer = () => 'short';
    const spill = join(t.dir, 'spill');
    await rename(spill, `${spill}.gone`);
    await writeFile(spill, 'not a folder');
    const spilled = await call('cc__words', { words: 2500, _spillway_bypass: true });
    expect(spilled.result.isError).toBeFalsy();
    expect(spilled.event.action).toBe('truncate');
    const compressed = await call('cc__words', { words: 2600 });
    expect(compressed.result.isError, textOf(compressed.result).slice(0, 300)).toBeFalsy();
    expect(compressed.event.action).toBe(spilled.event.action);
    expect(textOf(compressed.result)).toContain('word0 word1');
  });
});

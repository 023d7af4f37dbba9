/**
 * Compression and PII masking through a real hub: an SDK client on the HTTP endpoint, the recording
 * fixture as the upstream, and test/support/fake-openai.ts (the chat-completions wire protocol) as the
 * model. What the endpoint sees, what the client gets, the Test button, the key a form saves, the cache.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { createChatClient } from '../../electron/core/compress/chat-client.js';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';

const KEY = 'sk-hub-key-0123456789';
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
/** The summary under the compression header, without the note on the masked copy. */
const bodyOf = (text: string) => text.slice(text.indexOf('\n---\n') + 5).split('\n[Spillway] Personal data')[0]!;

/** A faithful JSON summariser: keeps total, note and the first three items, as the prompt asks. */
const jsonSummary = (user: string) => {
  if (!user.includes('"items"')) return user.slice(0, 200);
  const v = JSON.parse(user) as { total: number; note?: unknown; items: unknown[] };
  return JSON.stringify(
    { total: v.total, note: v.note, items: [...v.items.slice(0, 3), `… ${v.items.length - 3} more items like the above`] },
    null,
    2,
  );
};

describe('compression with masked results through the hub', () => {
  let llm: FakeOpenAI;
  let t: TestHub;
  let client: Client;
  let dir: string;
  const call = async (name: string, args: Record<string, unknown>, from: Client = client) =>
    (await from.callTool({ name, arguments: args })) as CallToolResult;
  const callWithEvent = async (name: string, args: Record<string, unknown>, from: Client = client) => {
    const finished = t.waitFor((e) => e.type === 'call.finished' && e.exposedName === name, name);
    const result = await call(name, args, from);
    return { result, event: (await finished) as Extract<HubEvent, { type: 'call.finished' }> };
  };
  /** The "note" line of the result as the endpoint last received it. */
  const noteSent = () => /"note".*/.exec(llm.requests.at(-1)!.body.messages.find((m) => m.role === 'user')!.content)?.[0];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'compress-masked-'));
    llm = await startFakeOpenAI({ kind: 'answer', content: jsonSummary });
    t = await startTestHub({
      version: 1,
      servers: { rec: { type: 'stdio', command: NODE, args: [fixture('recording-server.mjs'), '--record', join(dir, 'calls.jsonl')] } },
      settings: { port: 0, compression: { baseUrl: llm.baseUrl, model: 'fake', apiKey: KEY } },
      policies: {
        tools: {
          rec: {
            big_json: {
              action: 'compress',
              thresholdTokens: 500,
              compressMaxTokens: 8000,
              pii: {
                types: ['email'],
                custom: [
                  { name: 'account', pattern: 'CORP\\W{1,2}\\w+' },
                  { name: 'domain_user', pattern: 'ACME\\\\\\w+' },
                ],
                maskResults: true,
              },
            },
            echo: { action: 'compress', thresholdTokens: 500, compressMaxTokens: 8000 },
          },
        },
      },
    });
    await t.waitForStatus('rec', 'ready');
    client = await t.connect();
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await llm?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a DOMAIN\\user value, written with an escape in the JSON result, reaches the endpoint masked', async () => {
    await callWithEvent('rec__big_json', { count: 300, note: 'ACME\\bob' });
    expect(noteSent()).toMatch(/\[DOMAIN_USER_1_[a-z0-9]{6}\]/);
    expect(noteSent()).not.toContain('bob');
  });

  it('a masked value with a backslash comes back into the JSON summary escaped, as the upstream wrote it', async () => {
    const { result } = await callWithEvent('rec__big_json', { count: 300, note: 'CORP\\tom' });
    expect(noteSent()).not.toContain('tom');
    const summary = JSON.parse(bodyOf(textOf(result))) as { note?: unknown };
    expect(summary.note).toBe('CORP\\tom');
  });

  it('a summary the endpoint cut at max_tokens (finish_reason "length") says it was cut', async () => {
    llm.mode = { kind: 'answer', content: (user) => `{"id": "A-77", "filler": "${user.slice(10, 50)}`, finishReason: 'length' };
    try {
      const { result, event } = await callWithEvent('rec__echo', { filler: 'x '.repeat(4000), id: 'A-77' });
      expect(event.action).toBe('compress');
      expect(bodyOf(textOf(result))).toMatch(/\n… \(cut at 8,000 tokens\)$/);
    } finally {
      llm.mode = { kind: 'answer', content: jsonSummary };
    }
  });

  it('the Test button does not show the API key when the endpoint echoes it', async () => {
    llm.mode = {
      kind: 'status',
      status: 401,
      body: (r) => JSON.stringify({ error: { message: `Invalid API key ${KEY} (${String(r.headers.authorization)})` } }),
    };
    try {
      const test = await t.api<{ ok: boolean; error?: string }>('compression.test');
      expect(test.value?.ok).toBe(false);
      expect(test.value?.error).toContain('HTTP 401');
      expect(test.value?.error).not.toContain(KEY);
      expect(test.value?.error).not.toContain('0123456789');
    } finally {
      llm.mode = { kind: 'answer', content: jsonSummary };
    }
  });

  it('an API key with an invisible, non-ASCII or line-break character is refused on save, naming the key', async () => {
    for (const bad of [`${KEY}\u200b`, `${KEY}\n`, `sk-clé-0123456789`, `${KEY} `]) {
      const set = await t.api('settings.set', { compression: { apiKey: bad } });
      expect(set.ok).toBe(false);
      expect(set.field).toMatch(/apiKey/);
      expect(set.message).toMatch(/API key/);
    }
    const kept = await t.api<{ ok: boolean }>('compression.test');
    expect(kept.value?.ok).toBe(true);
  });

  it('a key with a line break in the config fails as a configuration error, without the key in the message', async () => {
    const chat = createChatClient({ baseUrl: llm.baseUrl, model: 'fake', apiKey: `${KEY}\n` });
    const result = await chat.complete({ messages: [{ role: 'user', content: 'x' }], maxTokens: 10 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('config');
    expect(result.error.message).toMatch(/API key/);
    expect(result.error.message).not.toContain(KEY);
  });

  it('the same masked result is compressed once, and each call gets its own values back', async () => {
    llm.requests.length = 0;
    for (let i = 0; i < 3; i++) {
      // Each from an app of its own: the same session calling again would be a retry, asking for a larger summary.
      const app = await t.connect(undefined, `masked-app-${i}`);
      const { result, event } = await callWithEvent('rec__big_json', { count: 400, emails: true }, app);
      expect(event.action).toBe('compress');
      expect(textOf(result)).toContain('person-0@example.org');
      expect(textOf(result)).not.toMatch(/\[EMAIL_\d+/);
    }
    expect(llm.requests).toHaveLength(1);
  });
});

/**
 * PII masking through the hub's real endpoint (issue 8): the recording fixture server proves what the
 * upstream saw (placeholders only), the client gets the original values back, a near-miss stays as it
 * is, and with maskResults the compression model (test/fixtures/fake-llm-server.mjs) and the spill store
 * see placeholders while the client reads the originals.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { PII_TYPES } from '../../electron/core/pii/index.js';
import { PiiTypeSchema } from '../../shared/policy.js';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

const EMAIL = 'alice.smith@example.com';
const CARD = '4111 1111 1111 1111';
/** Fails the Luhn check: not a card number, so it must reach the upstream unchanged. */
const NOT_A_CARD = '4111 1111 1111 1112';

/** A placeholder of a tool call's vault: `[EMAIL_1_k3j9x2]`, the call's random tag at the end. */
const TAGGED = /(\[[A-Z][A-Z0-9_]*_\d+)_[a-z][a-z0-9]{5}\]/g;
/** `value` with the calls' tags taken off the placeholders, to compare with `[EMAIL_1]`. */
const untagged = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replace(TAGGED, '$1]'));

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('PII masking through the endpoint', () => {
  let llm: Started;
  let llmRoot: string;
  let t: TestHub;
  let client: Client;
  let dir: string;
  let recordFile: string;

  const recorded = async (): Promise<Array<{ tool: string; arguments: Record<string, unknown> }>> =>
    (await readFile(recordFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-pii-'));
    recordFile = join(dir, 'calls.jsonl');
    llm = await spawnUntil(NODE, [fixture('fake-llm-server.mjs'), '--port', '0'], /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/);
    llmRoot = llm.match[1]!.replace(/\/v1$/, '');
    t = await startTestHub({
      version: 1,
      servers: { rec: { type: 'stdio', command: NODE, args: [fixture('recording-server.mjs'), '--record', recordFile] } },
      settings: { port: 0, compression: { baseUrl: llm.match[1]!, model: 'fake-model' } },
      policies: {
        tools: {
          rec: {
            echo: { pii: { types: ['email', 'credit_card'] } },
            big_json: { action: 'compress', thresholdTokens: 500, pii: { types: ['email'], maskResults: true } },
          },
        },
      },
    });
    await t.waitForStatus('rec', 'ready');
    client = await t.connect();
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    await llm?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the shared PII type list matches the masker', () => {
    expect([...PiiTypeSchema.options].sort()).toEqual([...PII_TYPES].sort());
  });

  it('sends placeholders upstream and restores the originals in the result; a near-miss passes unmasked', async () => {
    const started = t.waitFor((e) => e.type === 'call.started' && e.exposedName === 'rec__echo', 'call.started');
    const args = { to: EMAIL, card: CARD, other: NOT_A_CARD, note: `write to ${EMAIL} today` };
    const result = await call('rec__echo', args);

    const upstreamSaw = (await recorded()).at(-1)!;
    expect(untagged(upstreamSaw.arguments)).toEqual({
      to: '[EMAIL_1]',
      card: '[CREDIT_CARD_1]',
      other: NOT_A_CARD,
      note: 'write to [EMAIL_1] today',
    });
    // One tag for the whole call.
    const tag = /^\[EMAIL_1_([a-z][a-z0-9]{5})\]$/.exec(String(upstreamSaw.arguments.to))![1];
    expect(upstreamSaw.arguments.card).toBe(`[CREDIT_CARD_1_${tag}]`);
    const file = await readFile(recordFile, 'utf8');
    expect(file).not.toContain(EMAIL);
    expect(file).not.toContain(CARD);

    // The upstream echoed placeholders; the client reads exactly what it sent.
    expect(JSON.parse(textOf(result))).toEqual(args);
    // The event log shows the masked arguments only.
    const event = (await started) as Extract<HubEvent, { type: 'call.started' }>;
    expect(untagged(event.argumentsPreview)).toContain('[EMAIL_1]');
    expect(event.argumentsPreview).not.toContain(EMAIL);
  });

  it('masks a card number sent as a JSON number, also nested, and gives the client the number back', async () => {
    const number = Number(CARD.replaceAll(' ', ''));
    const args = { other: number, note: { n: number, list: [number, 3] }, count: 3 };
    const result = await call('rec__echo', args);
    const upstreamSaw = (await recorded()).at(-1)!;
    expect(JSON.stringify(upstreamSaw.arguments)).not.toContain(String(number));
    expect(untagged(upstreamSaw.arguments)).toEqual({
      other: '[CREDIT_CARD_1]',
      note: { n: '[CREDIT_CARD_1]', list: ['[CREDIT_CARD_1]', 3] },
      count: 3,
    });
    // The server echoed the placeholders as JSON text: the numbers are back in it.
    expect(JSON.parse(textOf(result))).toEqual(args);
  });

  it('masks personal data in argument keys and restores it in what the client reads', async () => {
    const args = { note: { [EMAIL]: 'vip', plain: `cc ${EMAIL}` } };
    const result = await call('rec__echo', args);
    expect(untagged((await recorded()).at(-1)!.arguments)).toEqual({ note: { '[EMAIL_1]': 'vip', plain: 'cc [EMAIL_1]' } });
    expect(JSON.parse(textOf(result))).toEqual(args);
  });

  it("hidden values reach the upstream as set, never masked, and the log shows only the client's masked arguments", async () => {
    const set = await t.api('policies.setTool', {
      server: 'rec',
      tool: 'echo',
      policy: { hiddenParams: { to: 'ops@corp-example.com', card: 'tok_live_SECRET123' }, pii: { types: ['email'] } },
    });
    expect(set.ok).toBe(true);
    const started = t.waitFor((e) => e.type === 'call.started' && e.exposedName === 'rec__echo', 'call.started');
    await call('rec__echo', { note: `from ${EMAIL}` });
    expect(untagged((await recorded()).at(-1)!.arguments)).toEqual({
      note: 'from [EMAIL_1]',
      to: 'ops@corp-example.com',
      card: 'tok_live_SECRET123',
    });
    const preview = ((await started) as Extract<HubEvent, { type: 'call.started' }>).argumentsPreview;
    expect(untagged(JSON.parse(preview!))).toEqual({ note: 'from [EMAIL_1]' });
    await t.api('policies.setTool', { server: 'rec', tool: 'echo', policy: { pii: { types: ['email', 'credit_card'] } } });
  });

  it('with maskResults, the model and the spill store see placeholders; the client reads the originals', async () => {
    await fetch(`${llmRoot}/requests`, { method: 'DELETE' });
    const result = await call('rec__big_json', { count: 300, emails: true });
    const text = textOf(result);
    expect(text).toMatch(/^\[Compressed: /);
    const sent = (await (await fetch(`${llmRoot}/requests`)).json()) as Array<{ body: { messages: Array<{ role: string; content: string }> } }>;
    expect(sent).toHaveLength(1);
    const toModel = sent[0]!.body.messages.find((m) => m.role === 'user')!.content;
    expect(toModel).toMatch(/"contact": "\[EMAIL_1_[a-z][a-z0-9]{5}\]"/);
    expect(toModel).not.toContain('@example.org');
    // The summary comes back with the originals restored.
    expect(text).toContain('"contact": "person-0@example.org"');
    expect(text).not.toContain('[EMAIL_');

    const handle = (result._meta as Record<string, string>)['spillway/handle'];
    const kept = textOf(await call('spillway__read_result', { handle, op: 'head', lines: 20 }));
    expect(kept).toContain('[EMAIL_');
    expect(kept).not.toContain('@example.org');
  });

  it("with maskResults, the calling model's goal reaches the compression model masked too", async () => {
    await fetch(`${llmRoot}/requests`, { method: 'DELETE' });
    const result = await call('rec__big_json', { count: 300, emails: true, _spillway_goal: `the item of person-7@example.org, for ${EMAIL}` });
    expect(textOf(result)).toMatch(/^\[Compressed: /);
    const sent = (await (await fetch(`${llmRoot}/requests`)).json()) as Array<{ body: { messages: Array<{ role: string; content: string }> } }>;
    expect(sent).toHaveLength(1);
    const wire = JSON.stringify(sent);
    expect(wire).not.toContain('@example.org');
    expect(wire).not.toContain(EMAIL);
    const system = sent[0]!.body.messages.find((m) => m.role === 'system')!.content;
    // The same address as in the result, the same placeholder.
    expect(system).toMatch(/What the assistant needs from this result: the item of \[EMAIL_8_([a-z][a-z0-9]{5})\], for \[EMAIL_\d+_\1\]/);
  });

  it('refuses two custom patterns with one placeholder name, naming the second; the tool keeps working', async () => {
    const refused = await t.api('policies.setTool', {
      server: 'rec',
      tool: 'echo',
      policy: {
        pii: {
          types: [],
          custom: [
            { name: 'emp-id', pattern: 'EMP-\\d+' },
            { name: 'emp_id', pattern: 'E\\d{4}' },
          ],
        },
      },
    });
    expect(refused).toMatchObject({ ok: false, code: 'invalid', field: 'tools.rec.echo.pii.custom.1' });
    expect(refused.message).toMatch(/"emp_id" gives the same placeholder name \(EMP_ID\) as "emp-id": rename one/);
    const result = await call('rec__echo', { note: `EMP-123 for ${EMAIL}` });
    expect(result.isError).toBeFalsy();
    expect(untagged((await recorded()).at(-1)!.arguments)).toEqual({ note: 'EMP-123 for [EMAIL_1]' });
  });

  it('refuses an unsafe custom pattern, naming the field', async () => {
    const refused = await t.api('policies.setTool', {
      server: 'rec',
      tool: 'echo',
      policy: { pii: { types: ['email'], custom: [{ name: 'employee_id', pattern: '(\\w+\\s?)*$' }] } },
    });
    expect(refused).toMatchObject({ ok: false, code: 'invalid', field: 'tools.rec.echo.pii.custom.0' });
    expect(refused.message).toMatch(/employee_id/);

    const accepted = await t.api('policies.setTool', {
      server: 'rec',
      tool: 'echo',
      policy: { pii: { types: ['email'], custom: [{ name: 'employee_id', pattern: 'EMP-\\d{6}' }] } },
    });
    expect(accepted.ok).toBe(true);
    const result = await call('rec__echo', { note: 'EMP-123456 and EMP-123456 wrote to bob@example.net' });
    expect(untagged((await recorded()).at(-1)!.arguments)).toEqual({ note: '[EMPLOYEE_ID_1] and [EMPLOYEE_ID_1] wrote to [EMAIL_1]' });
    expect(JSON.parse(textOf(result))).toEqual({ note: 'EMP-123456 and EMP-123456 wrote to bob@example.net' });
  });
});

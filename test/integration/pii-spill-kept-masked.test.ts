/**
 * With maskResults the kept copy of a spilled result has personal data as placeholders while the preview
 * the client reads has the real values back (audit s13, compress item 6): grep for a value seen in the
 * preview finds nothing there. The header says so, and a search by another field finds the row.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';

const textOf = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
const NOTE = 'Personal data in the kept copy is masked: read_result shows placeholders where this shows the real values';

describe('a spilled result with maskResults', () => {
  let t: TestHub;
  let client: Client;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-kept-masked-'));
    const pii = { types: ['email'] };
    t = await startTestHub({
      version: 1,
      servers: { rec: { type: 'stdio', command: NODE, args: [fixture('recording-server.mjs'), '--record', join(dir, 'calls.jsonl')] } },
      settings: { port: 0 },
      policies: {
        tools: {
          rec: {
            big_json: { action: 'spill', thresholdTokens: 500, pii: { ...pii, maskResults: true } },
            echo: { action: 'spill', thresholdTokens: 500, pii },
          },
        },
      },
    });
    await t.waitForStatus('rec', 'ready');
    client = await t.connect();
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  it('says in its header that the kept copy is masked; a search by another field finds the row', async () => {
    const result = await call('rec__big_json', { count: 300, emails: true });
    const shown = textOf(result);
    const header = shown.slice(0, shown.indexOf('\n---\n'));
    expect(shown.slice(header.length)).toContain('person-0@example.org');
    expect(header).toContain(NOTE);
    const handle = (result._meta as Record<string, string>)['spillway/handle'];
    const read = async (args: Record<string, unknown>) => textOf(await call('spillway__read_result', { handle, ...args }));
    expect(await read({ op: 'grep', pattern: 'person-0@example\\.org' })).toMatch(/: 0 matching lines of/);
    const row = await read({ op: 'query', query: '.items | filter(.name == "item-0") | pick(.contact)' });
    expect(row).not.toContain('@example.org');
    expect(row).toMatch(/\[EMAIL_/);
  });

  it('says nothing of it when the result is not masked', async () => {
    const result = await call('rec__echo', { note: 'word '.repeat(2000) });
    expect(textOf(result)).toContain('[Spillway] Result too large');
    expect(textOf(result)).not.toContain('Personal data in the kept copy');
  });
});

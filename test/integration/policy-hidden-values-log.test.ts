/**
 * Hidden parameter values in the event log (audit round 2): an upstream error that quotes one is masked
 * in `call.finished` (kept current as the policy changes; a parameter whose name does not look secret,
 * which the log's key-based redaction would mask anyway), and a hidden parameter the client sent anyway
 * is named in `call.started`, whose preview shows the client's value, not the injected one.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { NODE, fixture, startTestHub, type TestHub } from '../support/hub-harness.js';

const tool = (name: string, fails = false) => ({
  name,
  description: fails ? 'Always refuses, quoting its arguments.' : 'Sends a message.',
  inputSchema: { type: 'object', properties: { to: { type: 'string' }, account: { type: 'string' } }, required: ['to'] },
  ...(fails ? { fails: true } : {}),
});

describe('hidden parameter values in the log', () => {
  let t: TestHub;
  let c: Client;
  let dir: string;

  /** The `call.started` and `call.finished` events of one call of `name`. */
  const callEvents = async (name: string, args: Record<string, unknown>) => {
    const finished = t.waitFor((e) => e.type === 'call.finished' && e.exposedName === name, 'call.finished');
    const started = t.waitFor((e) => e.type === 'call.started' && e.exposedName === name, 'call.started');
    await c.callTool({ name, arguments: args });
    return {
      started: (await started) as Extract<HubEvent, { type: 'call.started' }>,
      finished: (await finished) as Extract<HubEvent, { type: 'call.finished' }>,
    };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-hidden-log-'));
    const toolsFile = join(dir, 'tools.json');
    await writeFile(toolsFile, JSON.stringify([tool('send'), tool('fail', true)]));
    t = await startTestHub({
      version: 1,
      servers: { mut: { type: 'stdio', command: NODE, args: [fixture('mutable-tools-server.mjs'), toolsFile] } },
      settings: { port: 0 },
    });
    await t.waitForStatus('mut', 'ready');
    c = await t.connect();
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("masks a hidden value an upstream's error quotes in call.finished, the current value after a change", async () => {
    expect((await t.api('policies.setTool', { server: 'mut', tool: 'fail', policy: { hiddenParams: { account: 'acct-7731-blue' } } })).ok).toBe(true);
    const first = await callEvents('mut__fail', { to: 'bob' });
    expect(first.finished.error).toContain('refused');
    expect(first.finished.error).not.toContain('acct-7731-blue');
    expect(first.finished.error).toContain('***');

    expect((await t.api('policies.setTool', { server: 'mut', tool: 'fail', policy: { hiddenParams: { account: 'acct-9902-green' } } })).ok).toBe(
      true,
    );
    const second = await callEvents('mut__fail', { to: 'bob' });
    expect(second.finished.error).not.toContain('acct-9902-green');
    expect(second.finished.error).toContain('***');
    await t.api('policies.resetTool', { server: 'mut', tool: 'fail' });
  });

  it('names a hidden parameter the client sent anyway in call.started, never the hidden value', async () => {
    expect((await t.api('policies.setTool', { server: 'mut', tool: 'send', policy: { hiddenParams: { account: 'acct-7731-blue' } } })).ok).toBe(true);
    const sent = await callEvents('mut__send', { to: 'bob', account: 'model-value' });
    expect(sent.started.hiddenParamsReplaced).toEqual(['account']);
    expect(JSON.stringify([sent.started, sent.finished])).not.toContain('acct-7731-blue');

    const plain = await callEvents('mut__send', { to: 'bob' });
    expect(plain.started.hiddenParamsReplaced).toBeUndefined();
    await t.api('policies.resetTool', { server: 'mut', tool: 'send' });
  });
});

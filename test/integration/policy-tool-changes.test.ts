/**
 * Tool policies when the upstream changes the tool under them (audit round 2), against a server whose
 * tools come from a file (test/fixtures/mutable-tools-server.mjs): a hidden value the new definition does
 * not take is named in the pending change and the call is refused without quoting it; a policy whose tool
 * was renamed away is said once in the log (audit round 2).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import type { PendingPin } from '../../shared/policy.js';
import { NODE, fixture, startTestHub, type TestHub } from '../support/hub-harness.js';

const SECRET = 'SECRET-KEY-4242';
const textOf = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const send = (name: string, keyType = 'string') => ({
  name,
  description: 'Sends a message.',
  inputSchema: { type: 'object', properties: { to: { type: 'string' }, apiKey: { type: keyType } }, required: ['to', 'apiKey'] },
});

describe('tool policies when the upstream changes the tool', () => {
  let t: TestHub;
  let c: Client;
  let dir: string;
  let toolsFile: string;
  const events: HubEvent[] = [];
  /** Writes the server's tools and waits for the hub to take the new list in. */
  const serve = async (tools: unknown[], seen: (e: HubEvent) => boolean) => {
    const until = t.waitFor(seen, 'the changed tool list');
    await writeFile(toolsFile, JSON.stringify(tools));
    return until;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-tool-changes-'));
    toolsFile = join(dir, 'tools.json');
    await writeFile(toolsFile, JSON.stringify([send('send')]));
    t = await startTestHub({
      version: 1,
      servers: { mut: { type: 'stdio', command: NODE, args: [fixture('mutable-tools-server.mjs'), toolsFile] } },
      settings: { port: 0 },
    });
    await t.waitForStatus('mut', 'ready');
    t.hub.events.subscribe((e) => void events.push(e));
    c = await t.connect();
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a hidden value the approved definition does not take: named when pending, the call refused without it', async () => {
    expect((await t.api('policies.setTool', { server: 'mut', tool: 'send', policy: { hiddenParams: { apiKey: SECRET } } })).ok).toBe(true);
    // The server got the key: its echo of the arguments holds it, given back to the model as the placeholder.
    expect(textOf(await c.callTool({ name: 'mut__send', arguments: { to: 'a' } }))).toContain('"apiKey":"[hidden: apiKey]"');

    await serve([send('send', 'integer')], (e) => e.type === 'tool.withheld' && e.tool === 'send');
    const pending = (await t.api<PendingPin[]>('pins.pending')).value!;
    expect(pending).toHaveLength(1);
    expect(pending[0]!.policyProblem?.field).toBe('tools.mut.send.hiddenParams.apiKey');
    expect(pending[0]!.policyProblem?.message).toMatch(/whole number/);
    expect(JSON.stringify(pending)).not.toContain(SECRET);

    const before = events.length;
    expect((await t.api('pins.approve', { server: 'mut', tool: 'send' })).value).toEqual({ approved: true });
    const r = (await c.callTool({ name: 'mut__send', arguments: { to: 'a' } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('"apiKey"');
    expect(textOf(r)).toContain('tools.mut.send.hiddenParams.apiKey');
    expect(textOf(r)).not.toContain(SECRET);
    const logged = events.slice(before);
    expect(logged.some((e) => e.type === 'log' && e.level === 'warn' && e.message.includes('approved') && e.message.includes('"apiKey"'))).toBe(true);
    expect(JSON.stringify(logged)).not.toContain(SECRET);
    // Not sent: the upstream never got the value it would refuse.
    expect(logged.some((e) => e.type === 'call.started')).toBe(false);

    // A value that fits again: the tool works.
    expect((await t.api('policies.setTool', { server: 'mut', tool: 'send', policy: { hiddenParams: { apiKey: 42 } } })).ok).toBe(true);
    const fixed = (await c.callTool({ name: 'mut__send', arguments: { to: 'a' } })) as CallToolResult;
    expect(fixed.isError).toBeFalsy();
    expect(JSON.parse(textOf(fixed)).args).toEqual({ to: 'a', apiKey: 42 });
    await t.api('policies.resetTool', { server: 'mut', tool: 'send' });
  });

  it('a policy whose tool the upstream renamed: said once in the log, again only after it matched', async () => {
    await serve([send('send')], (e) => e.type === 'tool.withheld' && e.tool === 'send');
    await t.api('pins.approve', { server: 'mut', tool: 'send' });
    const policy = { hiddenParams: { apiKey: SECRET }, description: 'Sends (key injected).' };
    expect((await t.api('policies.setTool', { server: 'mut', tool: 'send', policy })).ok).toBe(true);
    const unmatched = (e: HubEvent) => e.type === 'log' && e.level === 'warn' && e.message.includes('lists no tool "send" now');

    const before = events.length;
    const said = await serve([send('send_message')], unmatched);
    expect(said).toMatchObject({ server: 'mut' });
    expect((said as { message: string }).message).toContain('(description, hidden parameters)');
    expect((said as { message: string }).message).toContain('Tools & policies');
    expect(JSON.stringify(said)).not.toContain(SECRET);
    // Listed again and again (another change of the server's list): not said twice.
    await serve([send('send_message'), { ...send('other'), description: 'Another.' }], (e) => e.type === 'catalog.changed');
    expect(events.slice(before).filter(unmatched)).toHaveLength(1);

    // The tool comes back, then goes again: said again.
    await serve([send('send')], (e) => e.type === 'catalog.changed');
    await serve([send('send_message')], unmatched);
    expect(events.slice(before).filter(unmatched)).toHaveLength(2);
    await t.api('policies.resetTool', { server: 'mut', tool: 'send' });
  });
});

/**
 * Tool policy fields that do nothing as set (audit round 2) are saved, with a warning that names the
 * field and says what to do, as a preview not below its threshold is: PII masking that names no type
 * and no pattern, compression fields on a tool whose results are not compressed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EffectivePolicy } from '../../shared/policy.js';
import { NODE, fixture, startTestHub, type TestHub } from '../support/hub-harness.js';

describe('policy fields that do nothing', () => {
  let t: TestHub;
  let dir: string;
  const setTool = async (policy: unknown) => {
    const r = await t.api<EffectivePolicy>('policies.setTool', { server: 'mut', tool: 'send', policy });
    expect(r.ok).toBe(true);
    return r.value!.warnings ?? [];
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-idle-fields-'));
    const toolsFile = join(dir, 'tools.json');
    await writeFile(toolsFile, JSON.stringify([{ name: 'send', inputSchema: { type: 'object', properties: { to: { type: 'string' } } } }]));
    t = await startTestHub({
      version: 1,
      servers: { mut: { type: 'stdio', command: NODE, args: [fixture('mutable-tools-server.mjs'), toolsFile] } },
      settings: { port: 0 },
    });
    await t.waitForStatus('mut', 'ready');
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('warns of PII masking with no type and no pattern', async () => {
    const empty = await setTool({ pii: {} });
    expect(empty).toHaveLength(1);
    expect(empty[0]).toMatch(/^pii: .*nothing is masked.*choose the types/);
    expect((await setTool({ pii: { types: [], maskResults: true } }))[0]).toMatch(/^pii: .*maskResults too/);
    expect(await setTool({ pii: { types: ['email'] } })).toEqual([]);
    expect(await setTool({ pii: { types: [], custom: [{ name: 'emp', pattern: 'EMP-\\d{6}' }] } })).toEqual([]);
  });

  it('warns of compression fields on a tool whose results are not compressed', async () => {
    const both = await setTool({ compressInstructions: 'be short', compressMaxTokens: 100 });
    expect(both).toHaveLength(1);
    expect(both[0]).toMatch(/^compressInstructions and compressMaxTokens: .*action is spill.*set the action to compress, or remove them/);
    expect((await setTool({ compressMaxTokens: 100 }))[0]).toMatch(/^compressMaxTokens: .*remove it\.$/);
    expect(await setTool({ action: 'compress', compressInstructions: 'be short' })).toEqual([]);
    // Compressed by the server's policy: the tool's own fields are used.
    expect((await t.api('policies.setServer', { server: 'mut', policy: { action: 'compress' } })).ok).toBe(true);
    expect(await setTool({ compressInstructions: 'be short' })).toEqual([]);
    expect((await t.api<EffectivePolicy>('policies.effective', { server: 'mut', tool: 'send' })).value!.warnings).toBeUndefined();
    await t.api('policies.setServer', { server: 'mut', policy: {} });
    await t.api('policies.resetTool', { server: 'mut', tool: 'send' });
  });
});

/**
 * Claude Code's own CLI against a real `spillway serve` on a temp HOME (issue 13, "Verify"): after
 * `spillway clients connect claude-code`, `claude mcp list` (which needs no login) shows Spillway
 * connected, and the hub saw Claude Code come in with its own token. Claude Code is not a dependency of
 * the app (~360 MB): `.ci/run` installs it in a cached folder of its own; without it the test is skipped
 * and says how to install it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runToExit, startClientHub, type ClientHub } from '../support/client-hub.js';
import { findClaudeCode } from '../support/third-party-clients.js';

const claude = findClaudeCode();
if ('missing' in claude) console.warn(`Claude Code test skipped: ${claude.missing}`);

let hub: ClientHub | undefined;

beforeAll(async () => {
  if ('bin' in claude) hub = await startClientHub();
});
afterAll(async () => {
  await hub?.stop();
});

describe('Claude Code CLI', () => {
  it('`claude mcp list` shows Spillway connected after `spillway clients connect claude-code`', async (ctx) => {
    if ('missing' in claude) return ctx.skip(claude.missing);
    const h = hub!;
    const connected = await h.spillway(['clients', 'connect', 'claude-code', '--yes']);
    expect(connected.code, connected.err).toBe(0);
    const written = JSON.parse(await readFile(join(h.home, '.claude.json'), 'utf8')) as {
      mcpServers: Record<string, { type: string; url: string }>;
    };
    expect(written.mcpServers.spillway).toMatchObject({ type: 'http', url: h.url });

    const list = await runToExit(claude.bin, ['mcp', 'list'], { env: h.env, cwd: h.home });
    expect(list.code, `claude mcp list exited ${list.code}\n${list.out}\n${list.err}`).toBe(0);
    const line = list.out.split('\n').find((l) => l.startsWith('spillway:'));
    expect(line, list.out).toBeDefined();
    expect(line).toContain(`${h.url} (HTTP)`);
    expect(line).toMatch(/✔ Connected/);

    // It came in with the token written for it, and the hub knows the entry is its own and current.
    const clients = await h.api<{ id: string; state: string; lastSeen?: string }[]>('clients.list');
    expect(clients.ok, clients.message).toBe(true);
    const entry = clients.value!.find((c) => c.id === 'claude-code');
    expect(entry).toMatchObject({ state: 'current', lastSeen: expect.any(String) });
  });
});

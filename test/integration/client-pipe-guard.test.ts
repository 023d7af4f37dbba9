/**
 * The client-pipe guard through the real hub: a pipe client (stdio, the bridge) never gets a tool result
 * bigger than the one limit it shares with the bridge (shared/limits.ts, less room for the envelope),
 * whatever the tool's policy says; below that limit the policy rules. The hub runs in-process, its client
 * connected over the SDK's in-memory pair as a stdio session.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CLIENT_PIPE_RESULT_MAX_BYTES, exceedsClientPipe } from '../../electron/core/call/client-pipe-guard.js';
import { startMemoryHub, type MemoryHub } from '../support/memory-hub.js';

let dir: string;
let hub: MemoryHub;
let client: Client;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-pipe-'));
  const server = () => {
    const s = new McpServer({ name: 'big', version: '1.0.0' });
    // About one token per 5 bytes: far over the forced spill's threshold once over the pipe limit.
    s.registerTool('words', { inputSchema: { bytes: z.number().int() } }, async ({ bytes }) => ({
      content: [{ type: 'text', text: ' word'.repeat(Math.ceil(bytes / 5)) }],
    }));
    return s;
  };
  // Spilling off by policy: only the guard can keep a result from the pipe client.
  hub = await startMemoryHub({ dir, servers: { big: server }, config: { settings: { spill: { thresholdTokens: null } } } });
  client = await hub.connect();
});

afterAll(async () => {
  await hub?.stop();
  await rm(dir, { recursive: true, force: true });
});

const words = (bytes: number) =>
  client.request({ method: 'tools/call', params: { name: 'big__words', arguments: { bytes } } }, CallToolResultSchema) as Promise<CallToolResult>;

describe('the client-pipe guard', () => {
  it('holds for pipe sessions only, at the limit shared with the bridge', () => {
    expect(CLIENT_PIPE_RESULT_MAX_BYTES).toBeGreaterThan(7.9 * 1024 * 1024);
    expect(exceedsClientPipe('stdio', CLIENT_PIPE_RESULT_MAX_BYTES)).toBe(false);
    expect(exceedsClientPipe('stdio', CLIENT_PIPE_RESULT_MAX_BYTES + 1)).toBe(true);
    expect(exceedsClientPipe('bridge', CLIENT_PIPE_RESULT_MAX_BYTES + 1)).toBe(true);
    expect(exceedsClientPipe('http', 100 * 1024 * 1024)).toBe(false);
  });

  it('passes a result under the limit whole when the policy says so (5 MiB, over the old 4 MiB guard)', async () => {
    const r = await words(5 * 1024 * 1024);
    const text = (r.content[0] as { text: string }).text;
    expect(text.length).toBeGreaterThanOrEqual(5 * 1024 * 1024);
    expect(r._meta?.['spillway/handle']).toBeUndefined();
  });

  it('spills a result over the limit for a pipe client, whatever the policy', async () => {
    const r = await words(CLIENT_PIPE_RESULT_MAX_BYTES + 64 * 1024);
    expect(r.isError).toBeFalsy();
    expect(r._meta?.['spillway/handle']).toEqual(expect.any(String));
    expect(JSON.stringify(r).length).toBeLessThan(64 * 1024);
  });
});

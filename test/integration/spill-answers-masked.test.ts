/**
 * A configured secret value that a tool echoes in a result that spills is masked in the control API's
 * answers on that result (spill.preview, spill.read: the window's viewer), as it is in the event log. The
 * model's own copy is the tool's output and stays as the server sent it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const KEY = 'sk-live-SECRETVALUE1234567890';
let hub: TestHub;
let handle: string;

beforeAll(async () => {
  hub = await startTestHub({
    version: 1,
    servers: { echo: { type: 'stdio', ...nodeServer(fixture('env-echo-server.mjs')), env: { ECHO_KEY: KEY } } },
  });
  await hub.waitForStatus('echo', 'ready');
  const client = await hub.connect();
  // Large enough to spill; the key sits on the first and last lines.
  const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}: status=ok${i === 0 || i === 19_999 ? ` key=${KEY}` : ''}`);
  const r = await client.callTool({ name: 'echo__echo', arguments: { text: lines.join('\n') } });
  handle = (r._meta as Record<string, string> | undefined)?.['spillway/handle'] ?? '';
  expect(handle).not.toBe('');
});

afterAll(async () => {
  await hub?.stop();
});

describe('spill answers of the control API', () => {
  it('mask a configured value in spill.preview', async () => {
    const preview = await hub.api<{ text: string }>('spill.preview', { handle });
    expect(preview.ok).toBe(true);
    expect(preview.value!.text).toContain('key=***');
    expect(preview.value!.text).not.toContain(KEY);
  });

  it('mask a configured value in spill.read', async () => {
    for (const body of [
      { op: 'slice', start: 1, end: 3 },
      { op: 'tail', lines: 1 },
      { op: 'grep', pattern: 'key=' },
      { op: 'read', offset: 0, maxTokens: 2_000 },
    ]) {
      const read = await hub.api<{ text: string }>('spill.read', { handle, ...body });
      expect(read.ok, JSON.stringify(body)).toBe(true);
      expect(read.value!.text, JSON.stringify(body)).toContain('key=***');
      expect(read.value!.text, JSON.stringify(body)).not.toContain(KEY);
    }
  });
});

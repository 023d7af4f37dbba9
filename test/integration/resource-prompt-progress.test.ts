/**
 * Progress an upstream sends during resources/read and prompts/get reaches the client that asked for it,
 * through the real hub (HTTP) and a stdio server that sends progress notifications before answering; and,
 * as for a tool call, each progress notification restarts the request's timeout.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({
    version: 1,
    servers: {
      one: { type: 'stdio', ...nodeServer(fixture('protocol-server.mjs'), ['one']) },
      tight: { type: 'stdio', ...nodeServer(fixture('protocol-server.mjs'), ['tight']), timeoutMs: 500 },
    },
  });
  await Promise.all(['one', 'tight'].map((id) => hub.waitForStatus(id, 'ready')));
});
afterAll(async () => hub?.stop());

it('relays the progress of resources/read and prompts/get, all of it before the result', async () => {
  const client = await hub.connect({ capabilities: {} });
  const read: number[] = [];
  const prompt: number[] = [];
  const contents = await client.readResource({ uri: 'one://slow' }, { onprogress: (p) => void read.push(p.progress) });
  expect(contents.contents).toEqual([{ uri: 'one://slow', text: 'one read one://slow' }]);
  const messages = await client.getPrompt({ name: 'one__slow_prompt', arguments: {} }, { onprogress: (p) => void prompt.push(p.progress) });
  expect(messages.messages).toHaveLength(1);
  expect(read).toEqual([1, 2, 3]);
  expect(prompt).toEqual([1, 2, 3]);
});

it('reads without progress when the client asked for none', async () => {
  const client = await hub.connect({ capabilities: {} });
  const contents = await client.readResource({ uri: 'one://slow' });
  expect(contents.contents).toEqual([{ uri: 'one://slow', text: 'one read one://slow' }]);
});

it('lets a read that keeps sending progress run past the timeout, and times out one that sends nothing', async () => {
  const client = await hub.connect({ capabilities: {} });
  // 20 notifications 50 ms apart: 1 s in all, against a 500 ms timeout. (200 ms apart left a loaded
  // machine, whose processes wait up to ~200 ms to run, little room before a gap passed for a timeout.)
  const drip = await client.readResource({ uri: 'tight://drip' });
  expect(drip.contents).toEqual([{ uri: 'tight://drip', text: 'tight read tight://drip' }]);
  await expect(client.readResource({ uri: 'tight://hang' })).rejects.toThrow(
    'Server "tight" did not answer resources/read within 1 s (timeout); the request was cancelled.',
  );
});

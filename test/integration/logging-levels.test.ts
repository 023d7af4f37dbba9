/**
 * Logging levels through the real hub, with a stdio server that logs at every level at or above the level
 * it was set to. The server is set to the most verbose level any session wants, a session that set none
 * counting as wanting everything; each session then gets only the levels it asked for. A server that
 * starts again is told the level again.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeEach(async () => {
  hub = await startTestHub({ mcpServers: { one: nodeServer(fixture('protocol-server.mjs'), ['one']) } });
  await hub.waitForStatus('one', 'ready');
});
afterEach(async () => hub?.stop());

const ALL: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The levels of the server's log messages a client gets, until the last one (emergency, which every level lets through). */
function levelsReceived(client: Client): Promise<LoggingLevel[]> {
  const got: LoggingLevel[] = [];
  return new Promise((resolve) =>
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
      if (n.params.logger !== 'one/fx') return;
      got.push(n.params.level);
      if (n.params.level === 'emergency') resolve(got);
    }),
  );
}

/** What the server says it saw: the level it was set to, and each setLevel since it started. */
async function state(client: Client): Promise<{ level?: string; events: string[] }> {
  const result = (await client.callTool({ name: 'one__state', arguments: {} })) as { content: { text: string }[] };
  return JSON.parse(result.content[0].text) as { level?: string; events: string[] };
}

it("gives a session that set no level every level while another session set 'error', which gets error and above only", async () => {
  const quiet = await hub.connect({ capabilities: {} }, 'quiet');
  const plain = await hub.connect({ capabilities: {} }, 'plain');
  const toQuiet = levelsReceived(quiet);
  const toPlain = levelsReceived(plain);
  await quiet.setLoggingLevel('error');
  await plain.callTool({ name: 'one__log_all', arguments: {} });
  expect(await toPlain).toEqual(ALL);
  expect(await toQuiet).toEqual(['error', 'critical', 'alert', 'emergency']);
  expect((await state(plain)).level).toBe('debug');
});

it('tells a restarted server the level sessions asked for', async () => {
  const client = await hub.connect({ capabilities: {} });
  await client.setLoggingLevel('warning');
  expect((await state(client)).level).toBe('warning');
  const ready = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'one' && e.status === 'ready', 'one ready again');
  await hub.api('upstreams.restart', { id: 'one' });
  await ready;
  const after = await state(client);
  expect(after.level).toBe('warning');
  expect(after.events).toEqual(['setLevel warning']);
});

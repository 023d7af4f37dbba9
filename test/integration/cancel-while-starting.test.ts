/**
 * A tools/call the client cancels while its server is still starting (audit s16): it is never sent to the
 * server once the server is up (a write the user cancelled must not run), and it is settled then, so its
 * session no longer counts it in flight and is closed once idle. Both paths: the lean path (a plain call)
 * and the SDK Server's (a call with a progress token). A real hub over HTTP, raw HTTP sessions, and a stdio
 * server that answers nothing until the test opens its gate; its `hold` tool writes a line when it runs.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { within } from '../support/bounded-wait.js';
import { NODE, fixture, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession } from '../support/raw-http-session.js';

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

describe('a call cancelled while its server starts', () => {
  for (const progress of [false, true]) {
    const path = progress ? 'the SDK path (a progress token)' : 'the lean path';
    it(`never reaches the server, and its session is closed once idle (${path})`, async () => {
      let gate = '';
      let ran = '';
      const config = (dir: string) => {
        gate = join(dir, 'gate');
        ran = join(dir, 'ran');
        return { version: 1, servers: { g: { type: 'stdio', command: NODE, args: [fixture('gated-server.mjs'), '--gate', gate, '--calls', ran] } } };
      };
      const started = await startTestHub(config, { httpSessions: { idleTimeoutMs: 200 } });
      hub = started;
      const session = await RawHttpSession.open(started.url, started.token, 'canceller');

      const waiting = started.waitFor((e) => e.type === 'log' && /A call waits for "g" to start/.test(e.message), 'the call waits');
      const meta = progress ? { _meta: { progressToken: 'p1' } } : {};
      const call = session.post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'g__hold', arguments: {}, ...meta } });
      await waiting;
      expect(started.hub.pool.get('g')?.status).toBe('connecting');
      await (await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } })).text();

      const reaped = started.waitFor((e) => e.type === 'session.reaped' && e.session === session.id, 'the session reaped');
      await writeFile(gate, '');
      await started.waitForStatus('g', 'ready');
      // The server takes requests in order: had the cancelled call been sent, it ran before this one is answered.
      const other = await RawHttpSession.open(started.url, started.token, 'other');
      expect((await other.request({ id: 1, method: 'tools/call', params: { name: 'g__ping', arguments: {} } })).body).toMatchObject({
        result: { content: [{ type: 'text', text: 'pong' }] },
      });
      expect(existsSync(ran)).toBe(false);

      // Settled: its response ends without an answer, and its session, idle, is closed.
      expect(await within((await call).text(), 5000, 'the cancelled call answered')).not.toContain('"id":7');
      await within(reaped, 5000, 'the session reaped');
      await other.close();
    });
  }
});

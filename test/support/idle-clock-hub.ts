/**
 * A real hub serving the fixture server as `fx` whose HTTP sessions are closed once idle on a clock the
 * test moves: the sweep runs often (a short idle timeout), the clock decides who is idle. For tests of
 * what keeps a session open (an HTTP response that never ends).
 */
import type { HubEvent } from '../../shared/events.js';
import { within } from './bounded-wait.js';
import { fixture, nodeServer, startTestHub, type TestHub } from './hub-harness.js';

export interface IdleClockHub {
  hub: TestHub;
  /** Moves the clock past the idle timeout: resolves with the session's `session.reaped`, or fails after 5 s. */
  reap(sessionId: string): Promise<HubEvent>;
}

export async function startIdleClockHub(): Promise<IdleClockHub> {
  let time = 1_000_000;
  const config = { version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } };
  const hub = await startTestHub(config, { httpSessions: { idleTimeoutMs: 100, now: () => time } });
  await hub.waitForStatus('fx', 'ready');
  return {
    hub,
    reap(sessionId) {
      const reaped = hub.waitFor((e) => e.type === 'session.reaped' && e.session === sessionId, 'the session reaped');
      time += 10_000;
      return within(reaped, 5000, 'the session reaped');
    },
  };
}

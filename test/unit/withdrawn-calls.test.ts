/**
 * How long a withdrawn request (cancelled, or timed out) counts as its session's at the upstream it was
 * sent to (DownstreamSession.withdraw, UpstreamRequests.attribute): for the grace period, not past it,
 * not past a restart of that upstream, and a closed session is forgotten once nothing counts for it.
 * withdrawn-call-sampling.test.ts covers the same through the real hub and a server.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DownstreamSession, WITHDRAWN_GRACE_MS, type SessionRouter } from '../../electron/core/downstream/session.js';
import { UpstreamRequests } from '../../electron/core/call/upstream-requests.js';

/** A router that does nothing: these sessions are never connected. */
const router: SessionRouter = {
  listTools: () => [],
  callTool: async () => ({ content: [] }),
  listResources: () => [],
  listResourceTemplates: () => [],
  readResource: async () => ({ contents: [] }),
  subscribe: async () => undefined,
  unsubscribe: async () => undefined,
  listPrompts: () => [],
  getPrompt: async () => ({ messages: [] }),
  complete: async () => ({ completion: { values: [] } }),
  setLevel: async () => undefined,
  rootsChanged: () => undefined,
  sessionReady: () => undefined,
  sessionClosed: () => undefined,
};

let now = 1_000;
afterEach(() => vi.restoreAllMocks());

function setup() {
  vi.spyOn(performance, 'now').mockImplementation(() => now);
  const open: DownstreamSession[] = [];
  const requests = new UpstreamRequests({ sessions: () => open, emit: () => undefined });
  const session = (id: string) => {
    const s = new DownstreamSession(id, 'http', router, '1');
    open.push(s);
    return s;
  };
  /** Starts a request of `s` waiting on `server`; `end` finishes it, withdrawn first when told the call's timeout. */
  const call = (s: DownstreamSession, requestId: number, server: string) => {
    let finish!: () => void;
    const done = s.track(requestId, () => new Promise<void>((resolve) => (finish = resolve)));
    s.waitsOn(requestId, server);
    return {
      end: async (withdrawnAfterMs?: number) => {
        if (withdrawnAfterMs !== undefined) s.withdraw(requestId, withdrawnAfterMs);
        finish();
        await done;
      },
    };
  };
  const close = (s: DownstreamSession) => {
    open.splice(open.indexOf(s), 1);
    s.closed = true;
    requests.sessionClosed(s);
  };
  const owner = (server: string) => {
    const a = requests.attribute(server);
    return a.to === 'session' ? a.session.id : a.to;
  };
  return { requests, session, call, close, owner };
}

describe('a withdrawn request', () => {
  it('makes "several" with another session for the grace period, then no longer counts', async () => {
    const { session, call, owner } = setup();
    const a = session('a');
    const b = session('b');
    await call(a, 1, 'srv').end(5_000);
    expect(owner('srv')).toBe('withdrawn');
    const bCall = call(b, 1, 'srv');
    expect(owner('srv')).toBe('several');
    expect(owner('other')).toBe('nobody');
    now += WITHDRAWN_GRACE_MS - 1;
    expect(owner('srv')).toBe('several');
    now += 1;
    expect(owner('srv')).toBe('b');
    expect(a.withdrawn.size).toBe(0);
    await bCall.end();
  });

  it('counts for as long again as the call was allowed, when that is longer than the grace period', async () => {
    const { session, call, owner } = setup();
    session('b');
    await call(session('a'), 1, 'srv').end(WITHDRAWN_GRACE_MS * 3);
    now += WITHDRAWN_GRACE_MS * 3 - 1;
    expect(owner('srv')).toBe('withdrawn');
    now += 1;
    expect(owner('srv')).toBe('nobody');
  });

  it('stops counting as in flight at once, even before its handler ends', () => {
    const { session, call, owner } = setup();
    const a = session('a');
    call(a, 1, 'srv');
    a.withdraw(1, 0);
    expect(a.inflight.size).toBe(1);
    expect(owner('srv')).toBe('withdrawn');
  });

  it("leaves the same session's newer request its owner", async () => {
    const { session, call, owner } = setup();
    const a = session('a');
    await call(a, 1, 'srv').end(0);
    const again = call(a, 2, 'srv');
    expect(owner('srv')).toBe('a');
    await again.end();
  });

  it('no longer counts once its upstream is ready on a new connection', async () => {
    const { requests, session, call, owner } = setup();
    const a = session('a');
    await call(a, 1, 'srv').end(0);
    await call(a, 2, 'kept').end(0);
    requests.upstreamReady('srv');
    expect(owner('srv')).toBe('nobody');
    expect(owner('kept')).toBe('withdrawn');
  });

  it('keeps a closed session counted until the grace period passes, then forgets it', async () => {
    const { session, call, close, owner } = setup();
    const a = session('a');
    await call(a, 1, 'srv').end(0);
    close(a);
    expect(owner('srv')).toBe('withdrawn');
    now += WITHDRAWN_GRACE_MS;
    expect(owner('srv')).toBe('nobody');
    expect(a.withdrawn.size).toBe(0);
  });

  it('is not recorded for a request that waits on no upstream', async () => {
    const { session, owner } = setup();
    const a = session('a');
    const done = a.track(1, async () => a.withdraw(1, 0));
    await done;
    expect(a.withdrawn.size).toBe(0);
    expect(owner('srv')).toBe('nobody');
  });
});

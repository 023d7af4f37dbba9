/**
 * whenCancelled on a request cancelled already (audit s16): its listener is called at once, on the fast
 * paths' cancellation and on a plain AbortSignal alike. An abort listener alone is never called for a
 * signal aborted before it was added, so a call cancelled while it waited was never cancelled upstream.
 */
import { describe, expect, it } from 'vitest';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RequestCancellation, whenCancelled } from '../../electron/core/downstream/request-cancellation.js';
import { requestExtra } from '../../electron/core/downstream/request-extra.js';

describe('whenCancelled on a request cancelled already', () => {
  it('calls its listener at once with the reason, through a fast path extra', () => {
    const cancellation = new RequestCancellation();
    const extra = requestExtra({ server: {} as Server, requestId: 1, cancellation, sessionId: undefined, meta: undefined, info: undefined });
    cancellation.cancel('before');
    const heard: unknown[] = [];
    const stop = whenCancelled(extra, (reason) => heard.push(reason));
    expect(heard).toEqual(['before']);
    stop();
    cancellation.cancel('again');
    expect(heard).toEqual(['before']);
  });

  it('calls its listener at once with the reason, through an aborted signal', () => {
    const controller = new AbortController();
    controller.abort('before');
    const heard: unknown[] = [];
    whenCancelled({ signal: controller.signal }, (reason) => heard.push(reason));
    expect(heard).toEqual(['before']);
  });
});

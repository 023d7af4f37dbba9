/**
 * Progress of in-flight tools/call requests: each call gets its own upstream progress token, and
 * progress the upstream sends is relayed on the downstream request's own stream (and resets the call's
 * timeout, whether or not the client asked for progress).
 */
import type { DownstreamExtra, DownstreamSession } from '../downstream/session.js';
import { whenCancelled } from '../downstream/request-cancellation.js';
import type { ValueMask } from '../log/secret-values.js';

/** One call's progress route, from the upstream token back to the client's. */
export interface ProgressRoute {
  session: DownstreamSession;
  extra: DownstreamExtra;
  downstreamToken: string | number;
  /** Serializes relayed notifications so the result never overtakes the last progress. */
  chain: Promise<void>;
  /** When the last progress notification went out. */
  lastSentAt?: number;
  onProgress: () => void;
  /** Replaces the call's hidden values in a relayed message (hidden-values.ts). */
  hiding?: ValueMask;
}

/** How long a stdio result waits behind a progress notification (see ProgressRoutes.settle). */
const STDIO_PROGRESS_FENCE_MS = 10;

export class ProgressRoutes {
  #routes = new Map<string, ProgressRoute>();
  #seq = 0;

  /**
   * Opens a route for one call. `route` is set only when the client asked for progress (it is what the
   * result waits behind); without a client token progress still calls `onProgress`.
   */
  open(
    session: DownstreamSession,
    extra: DownstreamExtra,
    downstreamToken: string | number | undefined,
    onProgress: () => void,
    hiding?: ValueMask,
  ): { upstreamToken: string; route: ProgressRoute | undefined } {
    const upstreamToken = `spillway-${++this.#seq}`;
    if (downstreamToken !== undefined) {
      const route: ProgressRoute = { session, extra, downstreamToken, chain: Promise.resolve(), onProgress };
      if (hiding) route.hiding = hiding;
      this.#routes.set(upstreamToken, route);
      return { upstreamToken, route };
    }
    this.#routes.set(upstreamToken, { session, extra, downstreamToken: '', chain: Promise.resolve(), onProgress });
    return { upstreamToken, route: undefined };
  }

  close(upstreamToken: string): void {
    this.#routes.delete(upstreamToken);
  }

  /**
   * Waits until the relayed progress is out. Over stdio, an SDK client drops a progress notification it
   * reads in the same chunk as the result (its response handler runs first), so the result also waits a
   * moment behind the last one.
   */
  async settle(route: ProgressRoute | undefined): Promise<void> {
    if (!route) return;
    await route.chain;
    if (route.session.kind !== 'stdio' || route.lastSentAt === undefined) return;
    const wait = STDIO_PROGRESS_FENCE_MS - (performance.now() - route.lastSentAt);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }

  /** Progress from an upstream, relayed at once on the downstream request's own stream. */
  relay(params: { progressToken: string | number; progress: number; total?: number; message?: string }): void {
    const route = this.#routes.get(String(params.progressToken));
    if (!route) return;
    route.onProgress();
    if (route.downstreamToken === '') return;
    const hiding = route.hiding;
    const notification = {
      method: 'notifications/progress' as const,
      params: {
        ...params,
        progressToken: route.downstreamToken,
        ...(hiding && params.message !== undefined ? { message: hiding.mask(params.message) } : {}),
      },
    };
    route.chain = route.chain.then(() =>
      route.extra
        .sendNotification(notification)
        .catch(() => undefined)
        .then(() => {
          route.lastSentAt = performance.now();
        }),
    );
  }
}

/**
 * Runs a wait for a server to start (issue 18) and tells a client that asked for progress what it waits
 * for: one notification (progress 0) on the request's own stream, out before the wait ends. A request
 * its client cancels (or whose session closes) stops waiting at once: the server's start goes on for
 * others, and the caller, seeing the request cancelled, does not send it (audit s19).
 */
export async function waitWithProgress(extra: DownstreamExtra, wait: (onWait?: (message: string) => void) => Promise<void>): Promise<void> {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return untilCancelled(extra, wait());
  let sent = Promise.resolve();
  await untilCancelled(
    extra,
    wait((message) => {
      sent = extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 0, message } }).catch(() => undefined);
    }),
  );
  await sent;
}

/** Resolves when `waiting` does, or as soon as the request is cancelled. */
function untilCancelled(extra: DownstreamExtra, waiting: Promise<void>): Promise<void> {
  let stop: (() => void) | undefined;
  const cancelled = new Promise<void>((resolve) => {
    stop = whenCancelled(extra, () => resolve());
  });
  return Promise.race([waiting, cancelled]).finally(() => stop?.());
}

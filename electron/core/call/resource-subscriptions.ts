/**
 * Resource subscriptions across sessions: which sessions subscribed to each URI, at which upstream. The
 * upstream is subscribed when the first session subscribes and unsubscribed when the last one leaves
 * (unsubscribes or closes); a session counts once however often it subscribes, a session that never
 * subscribed cannot end another's subscription, and a subscribe the upstream refused counts for nobody.
 * A restarted or reconnected upstream is a new process that knows nothing of them: they are sent again.
 */
import type { HubEventInput } from '../../../shared/events.js';
import type { DownstreamSession } from '../downstream/session.js';
import type { Upstream } from '../upstream/upstream.js';
import { bareMessage } from './relay-errors.js';

export interface ResourceSubscriptionsDeps {
  /** The upstream serving a URI, started first if need be; throws the error the client should get. */
  serverFor(uri: string): Promise<Upstream>;
  /** The upstream of that id as it is now (connected or not). */
  upstream(serverId: string): Upstream | undefined;
  emit(event: HubEventInput): void;
}

interface Subscription {
  /** The upstream subscribed (a URI whose server changes keeps the one it was subscribed at). */
  serverId: string;
  sessions: Set<DownstreamSession>;
}

const subscribable = (up: Upstream | undefined): boolean => Boolean(up?.client && up.capabilities?.resources?.subscribe);

export class ResourceSubscriptions {
  #byUri = new Map<string, Subscription>();
  /** The last operation on each URI: operations on one URI run one after another, never interleaved. */
  #tail = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: ResourceSubscriptionsDeps) {}

  /** The open sessions subscribed to a URI. */
  *subscribers(uri: string): Iterable<DownstreamSession> {
    for (const s of this.#byUri.get(uri)?.sessions ?? []) if (!s.closed) yield s;
  }

  subscribe(session: DownstreamSession, uri: string): Promise<void> {
    return this.#serial(uri, async () => {
      // A session that closed while this waited (behind another operation on the URI, for its server to
      // start, or for the upstream's answer) has already had its subscriptions ended: it must not get one
      // now, or nobody would ever end it.
      if (session.closed) return;
      const current = this.#byUri.get(uri);
      if (current) {
        current.sessions.add(session);
        return;
      }
      const up = await this.deps.serverFor(uri);
      if (session.closed) return;
      if (subscribable(up)) {
        // Rejects when the upstream refuses: then nobody is subscribed and the next subscribe asks again.
        await up.client!.subscribeResource({ uri });
        if (session.closed) {
          await up.client?.unsubscribeResource({ uri }).catch(() => undefined);
          return;
        }
      }
      this.#byUri.set(uri, { serverId: up.id, sessions: new Set([session]) });
    });
  }

  unsubscribe(session: DownstreamSession, uri: string): Promise<void> {
    return this.#serial(uri, async () => {
      const current = this.#byUri.get(uri);
      if (!current?.sessions.delete(session) || current.sessions.size > 0) return;
      this.#byUri.delete(uri);
      const up = this.deps.upstream(current.serverId);
      // A server that is not running holds no subscription.
      if (subscribable(up)) await up!.client!.unsubscribeResource({ uri }).catch(() => undefined);
    });
  }

  /** A closed session's subscriptions end with it. */
  sessionClosed(session: DownstreamSession): void {
    for (const [uri, sub] of this.#byUri) {
      if (sub.sessions.has(session)) void this.unsubscribe(session, uri).catch(() => undefined);
    }
  }

  /** An upstream is ready (started, restarted or reconnected): what sessions hold there is subscribed again. */
  upstreamReady(serverId: string): void {
    for (const [uri, sub] of this.#byUri) {
      if (sub.serverId !== serverId) continue;
      void this.#serial(uri, async () => {
        const up = this.deps.upstream(serverId);
        if (this.#byUri.get(uri) !== sub || !subscribable(up)) return;
        try {
          await up!.client!.subscribeResource({ uri });
        } catch (err) {
          // Nobody is subscribed there any more: a client's next subscribe goes to the server again.
          this.#byUri.delete(uri);
          this.deps.emit({
            type: 'log',
            level: 'warn',
            server: serverId,
            message:
              `Server "${serverId}" started again but refused the subscription to ${uri} (${bareMessage(err)}); ` +
              'clients get no updates of it until they subscribe again.',
          });
        }
      });
    }
  }

  #serial<T>(uri: string, run: () => Promise<T>): Promise<T> {
    const result = (this.#tail.get(uri) ?? Promise.resolve()).then(run);
    const tail = result.catch(() => undefined);
    this.#tail.set(uri, tail);
    void tail.then(() => {
      if (this.#tail.get(uri) === tail) this.#tail.delete(uri);
    });
    return result;
  }
}

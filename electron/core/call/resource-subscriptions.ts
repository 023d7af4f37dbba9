/**
 * Resource subscriptions across sessions: which sessions subscribed to each URI, at which upstream. The
 * upstream is subscribed when the first session subscribes and unsubscribed when the last one leaves
 * (unsubscribes or closes); a session counts once however often it subscribes, a session that never
 * subscribed cannot end another's subscription, and a subscribe the upstream refused counts for nobody.
 * A restarted or reconnected upstream is a new process that knows nothing of them: they are sent again.
 * A URI that another server serves now (its old one stopped or dropped it) moves there on the next subscribe.
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { HubEventInput } from '../../../shared/events.js';
import type { DownstreamSession } from '../downstream/session.js';
import type { Upstream } from '../upstream/upstream.js';
import { bareMessage, rpcError } from './relay-errors.js';

export interface ResourceSubscriptionsDeps {
  /** The upstream serving a URI, started first if need be; throws the error the client should get. */
  serverFor(uri: string): Promise<Upstream>;
  /** The upstream of that id as it is now (connected or not). */
  upstream(serverId: string): Upstream | undefined;
  /** The id of the server that serves a URI now, if any (the catalog's; starts nothing). */
  ownerOf(uri: string): string | undefined;
  emit(event: HubEventInput): void;
}

interface Subscription {
  /** The upstream subscribed (a URI whose server changes keeps it until the next subscribe moves it). */
  serverId: string;
  sessions: Set<DownstreamSession>;
}

const subscribable = (up: Upstream | undefined): boolean => Boolean(up?.client && up.capabilities?.resources?.subscribe);

/**
 * A connected server that does not offer subscriptions refuses them, as it would a direct client: no update
 * could ever come. One not running yet is recorded (its subscription is sent once it is ready, if it can).
 */
function refuseUnsubscribable(up: Upstream | undefined, uri: string): void {
  if (!up?.client || subscribable(up)) return;
  throw rpcError(
    ErrorCode.MethodNotFound,
    `Server "${up.id}" does not support resource subscriptions, so it sends no updates of ${uri}. Read the resource again to see changes.`,
  );
}

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
      if (current && !this.#moved(uri, current)) {
        refuseUnsubscribable(this.deps.upstream(current.serverId), uri);
        current.sessions.add(session);
        return;
      }
      const up = await this.deps.serverFor(uri);
      if (session.closed && !current) return;
      refuseUnsubscribable(up, uri);
      if (subscribable(up)) {
        // Rejects when the upstream refuses: then nobody is subscribed there (an entry being moved stays
        // where it was) and the next subscribe asks again.
        await up.client!.subscribeResource({ uri });
      }
      const sessions = new Set([...(current?.sessions ?? []), session].filter((s) => !s.closed));
      if (current) await this.#leave(uri, current.serverId, up.id);
      if (sessions.size === 0) {
        this.#byUri.delete(uri);
        if (subscribable(up)) await up.client?.unsubscribeResource({ uri }).catch(() => undefined);
        return;
      }
      this.#byUri.set(uri, { serverId: up.id, sessions });
    });
  }

  /**
   * Whether a subscription must move: its server no longer serves the URI (another one does now) or is not
   * connected. A URI that no server serves now stays where it was (its server may come back and renew it).
   */
  #moved(uri: string, sub: Subscription): boolean {
    const owner = this.deps.ownerOf(uri);
    if (owner === undefined) return false;
    return owner !== sub.serverId || !this.deps.upstream(sub.serverId)?.client;
  }

  /** The old server of a moved subscription is unsubscribed, when it is another one and still connected. */
  async #leave(uri: string, oldServerId: string, newServerId: string): Promise<void> {
    if (oldServerId === newServerId) return;
    const old = this.deps.upstream(oldServerId);
    if (subscribable(old)) await old!.client!.unsubscribeResource({ uri }).catch(() => undefined);
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

import { randomUUID } from 'node:crypto';
import type { HubLink } from './hub-link.js';
import { jsonLine, type Id, type Peek } from './messages.js';

/** The lists a server may announce changes of, by the capability that announces them. */
const LISTS = ['tools', 'prompts', 'resources'] as const;

/**
 * What the bridge remembers so the client's session survives a hub restart: the client's initialize
 * request and whether `notifications/initialized` followed, its log level and resource subscriptions.
 * A new hub is introduced to the client again as the first one was; the answers to those replayed
 * requests are kept from the client, who has seen them already.
 */
export class SessionReplay {
  /** The client's initialize request, until the hub answers it. */
  #pending: (Peek & { id: Id }) | undefined;
  /** The answered initialize request: there is a session to replay. */
  #done: Peek | undefined;
  /** The capabilities the client was told in that answer. */
  #told: Record<string, unknown> | undefined;
  #initialized = false;
  #level: Peek | undefined;
  readonly #subscriptions = new Set<string>();
  /** Replayed requests whose answers the client must not see, by the ids the bridge gave them. */
  readonly #replies = new Map<Id, (answer: Peek) => void>();
  /**
   * The start of those ids. Ids are the client's to choose, and it may choose any string: a random part
   * keeps the bridge's own from being one the client uses at the same time.
   */
  readonly #prefix = `spillway-bridge-${randomUUID()}-`;
  #seq = 0;

  /** Notes a client request that shapes the session. */
  clientRequest(m: Peek & { id: Id; method: string }): void {
    if (m.method === 'initialize') this.#pending = m;
    else if (m.method === 'logging/setLevel') this.#level = m;
    else if (m.method === 'resources/subscribe' && typeof m.params?.uri === 'string') this.#subscriptions.add(m.params.uri);
    else if (m.method === 'resources/unsubscribe' && typeof m.params?.uri === 'string') this.#subscriptions.delete(m.params.uri);
  }

  /** The client sent `notifications/initialized`. */
  clientInitialized(): void {
    this.#initialized = true;
  }

  /** The handler for the answer to a replayed request, taken once; undefined for the client's own ids. */
  takeReply(id: Id): ((answer: Peek) => void) | undefined {
    const reply = this.#replies.get(id);
    if (reply) this.#replies.delete(id);
    return reply;
  }

  /** Whether `id` is that of a replayed request still waiting for its answer (which is not the client's). */
  awaits(id: Id): boolean {
    return this.#replies.has(id);
  }

  /** The hub answered `id` (with `answer`, when parsed): whether that was the client's initialize (the session to replay from now on). */
  initializeAnswered(id: Id, answer?: Peek): boolean {
    if (this.#pending?.id !== id) return false;
    this.#done = this.#pending;
    this.#pending = undefined;
    this.#told = capabilities(answer);
    return true;
  }

  /** Whether an earlier hub answered the client's initialize, so a new one must be told. */
  get started(): boolean {
    return this.#done !== undefined;
  }

  /** Sends `m` to the hub behind `link` under an id of the bridge's own; its answer goes to `reply`, not the client. */
  #send(link: HubLink, m: Peek, reply: (answer: Peek) => void): void {
    const id = `${this.#prefix}${++this.#seq}`;
    this.#replies.set(id, reply);
    link.send(jsonLine({ ...m, id }), { ...m, id });
  }

  /** A request of the bridge's own to the hub (e.g. tools/list after a restart); never resolves if the hub goes away first. */
  ask(link: HubLink, method: string, params: Record<string, unknown>): Promise<Peek> {
    return new Promise((resolve) => this.#send(link, { jsonrpc: '2.0', method, params }, resolve));
  }

  /**
   * Introduces the client to the hub behind `link` again; `then` runs once the hub answered initialize,
   * with the list_changed notifications the client is owed: the new hub announces only changes made after
   * this session started, and its tools, prompts or resources may differ from the last hub's. Only those
   * both the client's first hub and this one declared (`listChanged`), so the client expects each.
   */
  replay(link: HubLink, then: (changed: string[]) => void): void {
    const send = (m: Peek, reply: (answer: Peek) => void) => this.#send(link, m, reply);
    send(this.#done!, (answer) => {
      const version = answer.result?.protocolVersion;
      if (typeof version === 'string') link.setProtocolVersion?.(version);
      if (this.#initialized) {
        // The parsed form is what the HTTP link sends: it must be whole JSON-RPC, as the line is.
        const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
        link.send(jsonLine(initialized), initialized);
      }
      if (this.#level) send(this.#level, () => undefined);
      for (const uri of this.#subscriptions) send({ jsonrpc: '2.0', method: 'resources/subscribe', params: { uri } }, () => undefined);
      const now = capabilities(answer);
      then(LISTS.filter((list) => announces(this.#told, list) && announces(now, list)).map((list) => `notifications/${list}/list_changed`));
    });
  }

  /** The hub went away: the answers to what was replayed to it will never come. */
  forgetReplies(): void {
    this.#replies.clear();
  }
}

function capabilities(answer: Peek | undefined): Record<string, unknown> | undefined {
  const c = answer?.result?.capabilities;
  return c !== null && typeof c === 'object' ? (c as Record<string, unknown>) : undefined;
}

/** Whether a server's capabilities say it announces changes to `list`. */
function announces(c: Record<string, unknown> | undefined, list: string): boolean {
  const entry = c?.[list];
  return entry !== null && typeof entry === 'object' && (entry as { listChanged?: unknown }).listChanged === true;
}

/**
 * Which of the SDK's auth runs calls an upstream's OAuth provider (issue 15): the one for a sign-in the
 * user started, the exchange of a sign-in's code, or (neither) the connection's own. Told per call through
 * async context, so runs at the same time are told apart; the runs of the user's sign-ins under way are
 * counted too, so that a connection's auth knows it runs beside one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Set while the SDK's auth runs for a sign-in the user started (signInByUser). */
const userSignIn = new AsyncLocalStorage<true>();
/**
 * Set while a sign-in's code is exchanged for tokens: the verifier stored when it began (the sign-in's), the
 * client it first read (the one it exchanges with), and `refused`: the server refused the code or the client meanwhile.
 */
interface Exchange {
  verifier?: string;
  client?: string;
  refused?: string;
}
const codeExchange = new AsyncLocalStorage<Exchange>();

/** Why a sign-in's code exchange failed, by what the SDK drops after the server's refusal (see exchangeRefused). */
const REFUSED_AT_EXCHANGE = {
  tokens: 'the server refused the authorization code: it may have expired',
  all: 'the server refused the client Spillway signed in with',
  client: 'the server refused the client Spillway signed in with',
  discovery: 'the server refused the sign-in',
} as const;

export class AuthRuns {
  #userSignIns = 0;
  #exchanges = 0;

  /** Runs the SDK's auth for a sign-in the user started. */
  byUser<T>(run: () => Promise<T>): Promise<T> {
    this.#userSignIns++;
    return userSignIn.run(true, run).finally(() => {
      this.#userSignIns--;
    });
  }

  /**
   * Runs the SDK's exchange of a sign-in's code (its state already taken: no longer waiting for the user),
   * reading first the verifier stored then: the sign-in's own.
   */
  exchange<T>(verifier: () => Promise<string | undefined>, run: () => Promise<T>): Promise<T> {
    this.#exchanges++;
    const exchange: Exchange = {};
    return codeExchange
      .run(exchange, async () => {
        exchange.verifier = await verifier();
        return run();
      })
      .finally(() => {
        this.#exchanges--;
      });
  }

  /** Whether this call comes from the auth of a sign-in the user started. */
  get inUserSignIn(): boolean {
    return userSignIn.getStore() === true;
  }

  /** Whether this call comes from a sign-in's code exchange. */
  get inExchange(): boolean {
    return codeExchange.getStore() !== undefined;
  }

  /** Whether a sign-in the user started has its auth or its code exchange under way (this call's run or another). */
  get userSignInUnderWay(): boolean {
    return this.#userSignIns > 0 || this.#exchanges > 0;
  }

  /**
   * The server refused this call's code exchange: the SDK asks to drop `scope` (kept, to say why it failed).
   * What goes: the exchange's verifier, and on a refused client the client it used, unless a step-up's (the
   * tokens in use are that client's), each only while still the one stored (not a newer sign-in's).
   */
  exchangeRefused(scope: keyof typeof REFUSED_AT_EXCHANGE | 'verifier', stepUp: boolean): { verifier?: string; client?: string } {
    const exchange = codeExchange.getStore();
    if (!exchange) return {};
    if (scope !== 'verifier') exchange.refused = REFUSED_AT_EXCHANGE[scope];
    const clientRefused = (scope === 'all' || scope === 'client') && !stepUp;
    return { verifier: exchange.verifier, ...(clientRefused && exchange.client !== undefined ? { client: exchange.client } : {}) };
  }

  /** Stops the SDK's retry of this call's code exchange once the server refused it (its client may be gone). */
  stopIfExchangeRefused(): void {
    const refused = codeExchange.getStore()?.refused;
    if (refused) throw new Error(refused);
  }

  /** The verifier stored when this call's code exchange began (a newer sign-in's may replace it meanwhile). */
  get exchangeVerifier(): string | undefined {
    return codeExchange.getStore()?.verifier;
  }

  /** This call's code exchange read this client (the first one read is the one it exchanges with). */
  exchangeReadClient(clientId: string | undefined): void {
    const exchange = codeExchange.getStore();
    if (exchange && exchange.client === undefined) exchange.client = clientId;
  }
}

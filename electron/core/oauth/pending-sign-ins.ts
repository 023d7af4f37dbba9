/**
 * Sign-ins waiting for their browser redirect, keyed by the OAuth `state` sent with each authorization
 * URL: random, single use, and valid for a limited time. The callback finds the server by it; a state
 * that is unknown, used, expired, cancelled or forgotten is refused (a forged or replayed redirect, or one
 * the user gave up on in Spillway: cancelled, or its server signed out or removed). A used state is kept
 * until it expires: the redirect of a sign-in that finished, sent again (the tab reloaded), is told so
 * rather than asked to sign in again.
 */
import { randomBytes } from 'node:crypto';

/** How long a sign-in waits for its redirect. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

export type TakenSignIn =
  | { serverId: string }
  /** Its redirect came before and signed the server in. */
  | { finished: string }
  | { refused: 'unknown' | 'expired' | Refusal };

/** Why Spillway gave up a waiting sign-in: cancelled, replaced by a newer one, or its server signed out or removed (forgotten). */
type Refusal = 'cancelled' | 'replaced' | 'forgotten';

interface Pending {
  serverId: string;
  expiresAt: number;
  /** Made for a sign-in the user started (Sign in pressed), not by a connection's own 401. */
  byUser: boolean;
  refused?: Refusal;
  /** Its redirect came (take); 'finished' once that signed the server in. */
  used?: 'taken' | 'finished';
}

export class PendingSignIns {
  readonly #byState = new Map<string, Pending>();

  constructor(
    private readonly ttlMs = SIGN_IN_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh state for a server's next authorization URL; `byUser` when the user started this sign-in. */
  create(serverId: string, byUser = false): string {
    this.#sweep();
    const state = randomBytes(24).toString('base64url');
    this.#byState.set(state, { serverId, expiresAt: this.now() + this.ttlMs, byUser });
    return state;
  }

  /** The server a state was made for, while it is known (also once expired, cancelled or replaced); not used up. */
  serverOf(state: string): string | undefined {
    return this.#byState.get(state)?.serverId;
  }

  /** Whether a sign-in the user started for this server still waits for its redirect (not expired, cancelled or replaced). */
  waitingForUser(serverId: string): boolean {
    const now = this.now();
    for (const entry of this.#byState.values())
      if (entry.serverId === serverId && entry.byUser && !entry.refused && !entry.used && entry.expiresAt >= now) return true;
    return false;
  }

  /** The server a state was made for; the state is used up either way (and kept, marked used, until it expires). */
  take(state: string): TakenSignIn {
    const entry = this.#byState.get(state);
    if (!entry) return { refused: 'unknown' };
    if (entry.used === 'finished') return { finished: entry.serverId };
    // Taken, and not (or not yet) signed in: told as a used link.
    if (entry.used) return { refused: 'unknown' };
    // Given up by Sign out or Remove: said so even once expired (its server's card has moved on, and may be a new one of that id).
    if (entry.refused === 'forgotten') {
      this.#byState.delete(state);
      return { refused: 'forgotten' };
    }
    if (entry.expiresAt < this.now()) {
      this.#byState.delete(state);
      return { refused: 'expired' };
    }
    if (entry.refused) {
      this.#byState.delete(state);
      return { refused: entry.refused };
    }
    entry.used = 'taken';
    return { serverId: entry.serverId };
  }

  /** A taken state whose redirect signed its server in: sent again, it is told so (see take). */
  finished(state: string): void {
    const entry = this.#byState.get(state);
    if (entry?.used) entry.used = 'finished';
  }

  /**
   * Cancels a server's waiting sign-ins: kept until they expire, so that a redirect that still comes back
   * is told it was cancelled. True when one was waiting.
   */
  cancel(serverId: string): boolean {
    return this.#refuseWaiting(serverId, 'cancelled');
  }

  /**
   * Marks a server's waiting sign-ins as replaced by a newer one (a server keeps one PKCE verifier, so
   * only the newest can finish): kept until they expire, so that their redirect is told why.
   */
  replace(serverId: string): boolean {
    return this.#refuseWaiting(serverId, 'replaced');
  }

  /** Forgets a server's sign-ins: their redirects are then refused as unknown. */
  forget(serverId: string): void {
    for (const [state, entry] of this.#byState) if (entry.serverId === serverId) this.#byState.delete(state);
  }

  /**
   * A server signed out or removed: its used sign-ins go; its waiting ones are kept, refused as forgotten,
   * until they expire, so that a redirect that still comes back is told why.
   */
  signedOut(serverId: string): void {
    for (const [state, entry] of this.#byState) if (entry.serverId === serverId && entry.used) this.#byState.delete(state);
    this.#refuseWaiting(serverId, 'forgotten');
  }

  #refuseWaiting(serverId: string, why: Refusal): boolean {
    this.#sweep();
    let any = false;
    for (const entry of this.#byState.values())
      if (entry.serverId === serverId && !entry.refused && !entry.used) {
        entry.refused = why;
        any = true;
      }
    return any;
  }

  /**
   * Entries go a while after they expire: until then a late redirect is told it expired, and for which
   * server. Used ones go once they expire (until then a reload is told the sign-in finished).
   */
  #sweep(): void {
    const now = this.now();
    for (const [state, entry] of this.#byState) if ((entry.used ? entry.expiresAt : entry.expiresAt + this.ttlMs) < now) this.#byState.delete(state);
  }
}

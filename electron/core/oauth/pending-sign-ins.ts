/**
 * Sign-ins waiting for their browser redirect, keyed by the OAuth `state` sent with each authorization
 * URL: random, single use, and valid for a limited time. The callback finds the server by it; a state
 * that is unknown, used, expired or cancelled is refused (a forged or replayed redirect, or one the user
 * gave up on in Spillway).
 */
import { randomBytes } from 'node:crypto';

/** How long a sign-in waits for its redirect. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

export type TakenSignIn = { serverId: string } | { refused: 'unknown' | 'expired' | 'cancelled' | 'replaced' };

export class PendingSignIns {
  readonly #byState = new Map<string, { serverId: string; expiresAt: number; refused?: 'cancelled' | 'replaced' }>();

  constructor(
    private readonly ttlMs = SIGN_IN_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh state for a server's next authorization URL. */
  create(serverId: string): string {
    this.#sweep();
    const state = randomBytes(24).toString('base64url');
    this.#byState.set(state, { serverId, expiresAt: this.now() + this.ttlMs });
    return state;
  }

  /** The server a state was made for; the state is used up either way. */
  take(state: string): TakenSignIn {
    const entry = this.#byState.get(state);
    this.#byState.delete(state);
    if (!entry) return { refused: 'unknown' };
    if (entry.expiresAt < this.now()) return { refused: 'expired' };
    if (entry.refused) return { refused: entry.refused };
    return { serverId: entry.serverId };
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

  /** Forgets a server's waiting sign-ins (signed out, removed). */
  forget(serverId: string): void {
    for (const [state, entry] of this.#byState) if (entry.serverId === serverId) this.#byState.delete(state);
  }

  #refuseWaiting(serverId: string, why: 'cancelled' | 'replaced'): boolean {
    this.#sweep();
    let any = false;
    for (const entry of this.#byState.values())
      if (entry.serverId === serverId && !entry.refused) {
        entry.refused = why;
        any = true;
      }
    return any;
  }

  #sweep(): void {
    const now = this.now();
    for (const [state, entry] of this.#byState) if (entry.expiresAt < now) this.#byState.delete(state);
  }
}

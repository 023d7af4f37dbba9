/**
 * Sign-ins waiting for their browser redirect, keyed by the OAuth `state` sent with each authorization
 * URL: random, single use, and valid for a limited time. The callback finds the server by it; a state
 * that is unknown, used or expired is refused (a forged or replayed redirect).
 */
import { randomBytes } from 'node:crypto';

/** How long a sign-in waits for its redirect. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

export type TakenSignIn = { serverId: string } | { refused: 'unknown' | 'expired' };

export class PendingSignIns {
  readonly #byState = new Map<string, { serverId: string; expiresAt: number }>();

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
    return { serverId: entry.serverId };
  }

  /** Forgets a server's waiting sign-ins (signed out, removed). */
  forget(serverId: string): void {
    for (const [state, entry] of this.#byState) if (entry.serverId === serverId) this.#byState.delete(state);
  }

  #sweep(): void {
    const now = this.now();
    for (const [state, entry] of this.#byState) if (entry.expiresAt < now) this.#byState.delete(state);
  }
}

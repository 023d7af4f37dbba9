/**
 * What an upstream's OAuth provider remembers of its connection's refreshes, to tell a refresh's late answer
 * from newer tokens stored meanwhile (issue 15):
 * - refresh tokens the server refused outright (the last few; spent ones, in memory only): a refresh sent
 *   with a token another refresh had spent is refused, and the SDK then drops the stored tokens, which by
 *   then are that other refresh's fresh ones (see UpstreamOAuthProvider.invalidateCredentials);
 * - how many sign-ins' code exchanges had stored their tokens when each refresh was sent: a refresh sent
 *   before an exchange and answered after it brings tokens older than the exchange's (a step-up's scope
 *   would be lost), so they are not stored.
 */
const KEPT = 8;

export class RefreshLedger {
  readonly #refused: string[] = [];
  /** Tokens code exchanges stored so far. */
  #exchanges = 0;
  /** The access tokens refreshes were granted, and #exchanges when each refresh was sent (the last few). */
  readonly #granted = new Map<string, number>();

  /** The server refused a refresh sent with this refresh token. */
  refused(refreshToken: string): void {
    this.#refused.push(refreshToken);
    if (this.#refused.length > KEPT) this.#refused.shift();
  }

  /** Whether the refresh token stored now came after a refresh the server refused (a newer one, not a refused one). */
  storedAfterRefusal(stored: string | undefined): boolean {
    return this.#refused.length > 0 && stored !== undefined && !this.#refused.includes(stored);
  }

  /** A refresh is sent now: what it gives is told the access token the server grants it. */
  sent(): (accessToken: string) => void {
    const exchanges = this.#exchanges;
    return (accessToken) => {
      this.#granted.set(accessToken, exchanges);
      if (this.#granted.size > KEPT) this.#granted.delete(this.#granted.keys().next().value!);
    };
  }

  /** A sign-in's code exchange stores its tokens now. */
  exchangeStored(): void {
    this.#exchanges++;
  }

  /** Whether these tokens came from a refresh sent before a code exchange stored newer ones. */
  olderThanExchange(accessToken: string): boolean {
    const exchanges = this.#granted.get(accessToken);
    return exchanges !== undefined && exchanges !== this.#exchanges;
  }
}

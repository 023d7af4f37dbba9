/**
 * One bearer token per connected client, so the hub knows which client is calling and one can be revoked
 * without touching the others. Kept owner-only in `<dataDir>/client-tokens.json`.
 */
import { readFile } from 'node:fs/promises';
import { newToken, tokensEqual } from '../files/access-token.js';
import { AtomicFile } from '../files/atomic-file.js';

export class ClientTokens {
  #tokens: Record<string, string> = {};
  readonly #file: AtomicFile;

  private constructor(readonly file: string) {
    this.#file = new AtomicFile(file, () => `${JSON.stringify(this.#tokens, null, 2)}\n`, { mode: 0o600 });
  }

  static async open(file: string): Promise<ClientTokens> {
    const store = new ClientTokens(file);
    try {
      const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [id, token] of Object.entries(parsed)) if (typeof token === 'string' && token.length >= 16) store.#tokens[id] = token;
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && !(err instanceof SyntaxError)) throw err;
    }
    return store;
  }

  get(clientId: string): string | undefined {
    return this.#tokens[clientId];
  }

  /** The client's token, created (and saved) on first use. */
  async ensure(clientId: string): Promise<string> {
    const existing = this.#tokens[clientId];
    if (existing) return existing;
    const token = newToken();
    this.#tokens[clientId] = token;
    await this.#save();
    return token;
  }

  async revoke(clientId: string): Promise<boolean> {
    if (!(clientId in this.#tokens)) return false;
    delete this.#tokens[clientId];
    await this.#save();
    return true;
  }

  /** Which client holds this token (constant-time comparisons). */
  lookup(token: string): string | undefined {
    let found: string | undefined;
    for (const [id, t] of Object.entries(this.#tokens)) if (tokensEqual(token, t)) found = id;
    return found;
  }

  #save(): Promise<void> {
    return this.#file.save();
  }
}

/**
 * The bearer token that guards the local endpoint: generated on first run, kept owner-only in the data dir.
 * Client tokens, the HTTP endpoint and the control API compare tokens with `tokensEqual`.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time token comparison. */
export function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Reads the token, creating it (mode 0600) when missing. */
export async function loadOrCreateToken(file: string): Promise<string> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    if (text.length >= 16) return text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = newToken();
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  await chmod(file, 0o600).catch(() => undefined);
  return token;
}

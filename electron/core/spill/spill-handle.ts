/**
 * Handles are lowercase base32 (RFC 4648 alphabet) prefixes of the sha256 of the stored content, 12
 * characters (60 bits) unless that prefix is taken by other content. They are validated by a strict
 * pattern before any path is built from them, so no handle can name anything outside the spill folder.
 */
export const HANDLE_PATTERN = /^[a-z2-7]{12,52}$/;
export const HANDLE_LENGTH = 12;
export const SPILL_URI_PREFIX = 'spillway://spill/';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Lowercase RFC 4648 base32 without padding: how a content digest becomes a handle. */
export function base32(digest: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** The shortest prefix of `hash` (at least HANDLE_LENGTH) not taken by other content (`takenBy`: the hash of what has it). */
export function handleFor(hash: string, takenBy: (candidate: string) => string | undefined): string {
  for (let length = HANDLE_LENGTH; length <= hash.length; length += 4) {
    const candidate = hash.slice(0, length);
    const taken = takenBy(candidate);
    if (taken === undefined || taken === hash) return candidate;
  }
  return hash;
}

export function isValidHandle(handle: unknown): handle is string {
  return typeof handle === 'string' && HANDLE_PATTERN.test(handle);
}

export function spillUri(handle: string): string {
  return `${SPILL_URI_PREFIX}${handle}`;
}

/** The handle in a `spillway://spill/<handle>` URI, or null when the URI is not one. */
export function handleFromUri(uri: string): string | null {
  if (!uri.startsWith(SPILL_URI_PREFIX)) return null;
  const handle = uri.slice(SPILL_URI_PREFIX.length);
  return isValidHandle(handle) ? handle : null;
}

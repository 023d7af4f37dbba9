/**
 * JSON with a stable key order, so equal values give equal strings (cache keys, tool pin hashes).
 */

/**
 * Serializes like JSON.stringify (undefined members and functions dropped, non-finite numbers as null,
 * `toJSON` honoured) but with object keys sorted at every depth.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return sortKeys(withJson.toJSON());
  if (Array.isArray(value)) return value.map(sortKeys);
  // A null prototype so a `__proto__` key stays a plain key.
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

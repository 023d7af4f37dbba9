/**
 * Records keyed by ids that users and servers choose. A plain object inherits `constructor`, `toString`
 * and friends, so `servers["constructor"]` is never undefined: every lookup by such an id goes through
 * here (issue 13).
 */

/** The value stored under `key` in the record itself, never one inherited from Object.prototype. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Which of two published versions is newer, by semver's order (`x.y.z`, an optional `-pre.release`,
 * an ignored `+build`): Update offers only a newer version, never the one a registry tag happens to
 * point at when that is older.
 */

interface Parsed {
  core: [number, number, number];
  pre: string[];
}

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parse(version: string): Parsed | undefined {
  const m = VERSION.exec(version.trim());
  if (!m) return undefined;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] };
}

function comparePre(a: string[], b: string[]): number {
  // A version without a pre-release is newer than the same one with one.
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x) ? Number(x) : undefined;
    const ny = /^\d+$/.test(y) ? Number(y) : undefined;
    if (nx !== undefined && ny !== undefined) {
      if (nx !== ny) return nx < ny ? -1 : 1;
    } else if (nx !== undefined) return -1;
    else if (ny !== undefined) return 1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Whether `candidate` is a newer version than `current`; false when either is not a version semver can order. */
export function isNewerVersion(candidate: string, current: string): boolean {
  const a = parse(candidate);
  const b = parse(current);
  if (!a || !b) return false;
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return a.core[i]! > b.core[i]!;
  return comparePre(a.pre, b.pre) > 0;
}

/**
 * Whether Update should move from `current` to `candidate`: only to a newer version when both are
 * versions semver orders (npm's always are); a registry entry whose versions are not (`2024.10.01`)
 * falls back to any other version being the update, as its publisher marked it the latest.
 */
export function isUpdate(candidate: string, current: string): boolean {
  if (parse(candidate) && parse(current)) return isNewerVersion(candidate, current);
  return candidate !== current;
}

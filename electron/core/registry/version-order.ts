/**
 * Which of two published versions is newer, by semver's order (`x.y.z`, an optional `-pre.release`,
 * an ignored `+build`), or for a registry entry by dotted numbers of any length: Update offers only a
 * newer version, never the one a registry tag happens to point at when that is older.
 */

interface Parsed {
  /** The dotted numbers, as digits (a number too long for a double still orders right). */
  core: string[];
  pre: string[];
}

const VERSION = /^v?(\d+(?:\.\d+)*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** A version's parts; `semver`: only `x.y.z` (else any count of dotted numbers, `2025.1`, `1.10`). */
function parse(version: string, semver: boolean): Parsed | undefined {
  const m = VERSION.exec(version.trim());
  if (!m) return undefined;
  const core = m[1]!.split('.');
  if (semver && core.length !== 3) return undefined;
  return { core, pre: m[2] ? m[2].split('.') : [] };
}

/** Two runs of digits as the numbers they are. */
function compareDigits(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Dotted numbers part by part, a missing part being 0 (`2.0` is `2.0.0`). */
function compareCore(a: string[], b: string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const order = compareDigits(a[i] ?? '0', b[i] ?? '0');
    if (order !== 0) return order;
  }
  return 0;
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

function compare(a: Parsed, b: Parsed): number {
  return compareCore(a.core, b.core) || comparePre(a.pre, b.pre);
}

/** Whether `candidate` is a newer version than `current`; false when either is not a version semver can order. */
export function isNewerVersion(candidate: string, current: string): boolean {
  const a = parse(candidate, true);
  const b = parse(current, true);
  return !!a && !!b && compare(a, b) > 0;
}

/**
 * Whether Update should move from `current` to `candidate`: only to a newer version when both are
 * versions (semver's, npm's always are, or dotted numbers of any length such as `2025.1` or `1.10`,
 * a missing part being 0). A registry entry whose versions are not (`nightly-3`) falls back to any
 * other version being the update, as its publisher marked it the latest.
 */
export function isUpdate(candidate: string, current: string): boolean {
  const a = parse(candidate, false);
  const b = parse(current, false);
  if (a && b) return compare(a, b) > 0;
  return candidate !== current;
}

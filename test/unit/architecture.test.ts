import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sources(full));
    else if (/\.(c|m)?ts$|\.svelte$/.test(name)) out.push(full);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs: string[] = [];
  const re =
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
  for (const m of text.matchAll(re)) specs.push(m[1] ?? m[2] ?? m[3] ?? m[4]);
  return specs;
}

const NODE_BUILTINS = new Set([
  'fs',
  'path',
  'os',
  'child_process',
  'http',
  'https',
  'net',
  'crypto',
  'stream',
  'url',
  'util',
  'events',
  'worker_threads',
  'process',
  'buffer',
  'zlib',
  'readline',
  'tls',
  'dns',
  'assert',
  'timers',
]);

describe('layer boundaries', () => {
  it('electron/core and shared never import electron', () => {
    const offenders: string[] = [];
    for (const dir of ['electron/core', 'shared']) {
      for (const file of sources(join(root, dir))) {
        for (const spec of importsOf(file)) {
          if (spec === 'electron' || spec.startsWith('electron/')) offenders.push(`${relative(root, file)} -> ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('shared imports no Node modules (it is runtime-neutral)', () => {
    const offenders: string[] = [];
    for (const file of sources(join(root, 'shared'))) {
      for (const spec of importsOf(file)) {
        if (spec.startsWith('node:') || NODE_BUILTINS.has(spec.split('/')[0])) offenders.push(`${relative(root, file)} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the renderer reaches the app only through renderer/src/lib/api.ts', () => {
    const offenders: string[] = [];
    for (const file of sources(join(root, 'renderer/src'))) {
      for (const spec of importsOf(file)) {
        if (spec.includes('electron/') || spec === 'electron' || spec.startsWith('node:')) offenders.push(`${relative(root, file)} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the architecture check itself sees imports (guards against a regex that matches nothing)', () => {
    expect(importsOf(join(root, 'test/unit/architecture.test.ts'))).toContain('node:fs');
  });
});

/** One folder-direction zone of eslint.config.js: files under `target` may not import anything under `from`. */
interface Zone {
  target: string | string[];
  from: string | string[];
  except?: string[];
  message: string;
}

/** The specifiers of a file's static `import ... from`, `export ... from` and `import '...'` lines. */
export function staticImports(text: string): string[] {
  const re =
    /^\s*(?:import|export)\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?|[\w$]+)\s*from\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm;
  return [...text.matchAll(re)].map((m) => m[1] ?? m[2]);
}

/** Repo-relative path (with /) of the source a relative specifier names, or undefined for packages. */
function resolveSpecifier(file: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const target = resolve(dirname(file), spec)
    .replace(/\.js$/, '.ts')
    .replace(/\.cjs$/, '.cts');
  return relative(root, target).split(sep).join('/');
}

/** Every import between our own files under `dirs`, as repo-relative `from → to` pairs. */
function importEdges(dirs: string[]): { from: string; to: string }[] {
  const edges: { from: string; to: string }[] = [];
  for (const dir of dirs) {
    for (const file of sources(join(root, dir))) {
      const from = relative(root, file).split(sep).join('/');
      for (const spec of staticImports(readFileSync(file, 'utf8'))) {
        const to = resolveSpecifier(file, spec);
        if (to !== undefined) edges.push({ from, to });
      }
    }
  }
  return edges;
}

const CORE = 'electron/core/';

/** The unit a core file belongs to: its top folder, or `hub` for hub.ts, or the loose file's own name. */
function coreUnit(path: string): string | undefined {
  if (!path.startsWith(CORE)) return undefined;
  const rest = path.slice(CORE.length);
  const top = rest.split('/')[0];
  if (top === 'hub.ts') return 'hub';
  return top;
}

const list = (v: string | string[]) => (Array.isArray(v) ? v : [v]);
const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** The imports that go against a zone, one readable line each. */
function directionViolations(edges: { from: string; to: string }[], zones: Zone[]): string[] {
  const out: string[] = [];
  for (const { from, to } of edges) {
    for (const zone of zones) {
      if (!list(zone.target).some((t) => under(from, t))) continue;
      const banned = list(zone.from).find((f) => under(to, f) && !(zone.except ?? []).some((e) => under(to, `${f}/${e}`)));
      if (banned !== undefined) out.push(`${from} -> ${to}: ${zone.message}`);
    }
  }
  return out;
}

/** Pairs of electron/core units that import each other, with one file edge each way as the example. */
function mutualImports(edges: { from: string; to: string }[]): string[] {
  const example = new Map<string, string>();
  for (const { from, to } of edges) {
    const a = coreUnit(from);
    const b = coreUnit(to);
    if (a === undefined || b === undefined || a === b) continue;
    if (!example.has(`${a} ${b}`)) example.set(`${a} ${b}`, `${from} -> ${to}`);
  }
  const out: string[] = [];
  for (const [key, there] of example) {
    const [a, b] = key.split(' ');
    const back = example.get(`${b} ${a}`);
    if (back !== undefined && a < b) out.push(`${a} <-> ${b}  (${there}; ${back})`);
  }
  return out.sort();
}

async function eslintZones(): Promise<Zone[]> {
  const config: { zones: Zone[] } = await import(pathToFileURL(join(root, 'eslint.config.js')).href);
  return config.zones;
}

describe('folder direction (issue 12)', () => {
  it('the import scan reads every static import form', () => {
    const text = [
      "import { a,\n  b } from './a.js';",
      "import type { T } from '../t.js';",
      "import x, { y } from './x.js';",
      "import * as ns from './ns.js';",
      "export { z } from './z.js';",
      "export * from './all.js';",
      "export type { U } from './u.js';",
      "import './side-effect.js';",
      "const s = 'import { no } from \\'./not-a-line.js\\'';",
    ].join('\n');
    expect(staticImports(text)).toEqual(['./a.js', '../t.js', './x.js', './ns.js', './z.js', './all.js', './u.js', './side-effect.js']);
  });

  it('sees the imports of the core (guards against a scan that finds nothing)', () => {
    const edges = importEdges(['electron/core']);
    expect(edges.length).toBeGreaterThan(100);
    expect(edges.some(({ from, to }) => coreUnit(from) !== coreUnit(to) && coreUnit(to) !== undefined)).toBe(true);
  });

  it('shared/ imports nothing of ours', async () => {
    const shared = (await eslintZones()).filter((z) => list(z.target).includes('shared'));
    expect(directionViolations(importEdges(['shared']), shared)).toEqual([]);
  });

  it('every folder of electron/core has its place in the zones of eslint.config.js', async () => {
    const zones = await eslintZones();
    // Named as a target (what it may not import) or as a `from` (who may not import it; app/ is only that).
    const placed = new Set(zones.flatMap((z) => [...list(z.target), ...list(z.from)]));
    const folders = readdirSync(join(root, CORE)).filter((name) => statSync(join(root, CORE, name)).isDirectory());
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((name) => !placed.has(`${CORE}${name}`))).toEqual([]);
  });

  it('no two folders of electron/core import each other', () => {
    expect(mutualImports(importEdges(['electron/core']))).toEqual([]);
  });

  it('no import goes against the folder direction of eslint.config.js', async () => {
    expect(directionViolations(importEdges(['electron', 'shared', 'renderer/src']), await eslintZones())).toEqual([]);
  });
});

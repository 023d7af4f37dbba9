import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  const re = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
  for (const m of text.matchAll(re)) specs.push(m[1] ?? m[2] ?? m[3] ?? m[4]);
  return specs;
}

const NODE_BUILTINS = new Set([
  'fs', 'path', 'os', 'child_process', 'http', 'https', 'net', 'crypto', 'stream', 'url', 'util', 'events',
  'worker_threads', 'process', 'buffer', 'zlib', 'readline', 'tls', 'dns', 'assert', 'timers',
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

/** Spillway's version, read once from the package.json above this file (source or dist layout). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: { version: string; root: string } | undefined;

function find(): { version: string; root: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'spillway') return { version: pkg.version ?? '0.0.0', root: dir };
    }
    dir = dirname(dir);
  }
  return { version: '0.0.0', root: process.cwd() };
}

export function appVersion(): string {
  return (cached ??= find()).version;
}

/** The project (or packaged app) root: where package.json and dist/ live. */
export function appRoot(): string {
  return (cached ??= find()).root;
}

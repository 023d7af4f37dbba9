#!/usr/bin/env node
// Launcher for the `spillway` bin: runs the compiled CLI from dist/ (built by `npm install` / `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = fileURLToPath(new URL('../../dist/electron/cli/main.js', import.meta.url));
if (!existsSync(entry)) {
  console.error('Spillway is not built yet: run `npm run build` (npm install does it) and try again.');
  process.exit(1);
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));

#!/usr/bin/env node
// `npm start`: the desktop app where Electron can run; otherwise one line saying why, then the same hub
// headless with the same UI in the browser.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);

function electronBinary() {
  try {
    const pathFile = require.resolve('electron/path.txt');
    const dir = pathFile.replace(/path\.txt$/, 'dist/');
    const bin = require('node:fs').readFileSync(pathFile, 'utf8').trim();
    return existsSync(dir + bin) ? dir + bin : undefined;
  } catch {
    return undefined;
  }
}

const bin = process.env.SPILLWAY_HEADLESS ? undefined : electronBinary();
if (bin) {
  const child = spawn(bin, [root], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log(
    process.env.SPILLWAY_HEADLESS
      ? 'SPILLWAY_HEADLESS is set: running the hub headless; open the UI link below in your browser.'
      : "Electron's binary is not installed here, so Spillway runs headless: open the UI link below in your browser.",
  );
  const { main } = await import('../../dist/electron/cli/main.js');
  process.exitCode = await main(['serve', ...process.argv.slice(2)]);
}

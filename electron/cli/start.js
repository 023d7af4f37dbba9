#!/usr/bin/env node
// `npm start`: the desktop app where Electron can run; otherwise one line saying why, then the same hub
// headless with the same UI in the browser. "Can run" is known only by trying: on a server without a
// display, or as root without --no-sandbox, the binary is there but dies before the app is up.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);

/** The binary as the `electron` package finds it, ELECTRON_OVERRIDE_DIST_PATH (its own override) included. */
function electronBinary() {
  let pathFile;
  try {
    pathFile = require.resolve('electron/path.txt');
  } catch {
    pathFile = undefined;
  }
  const name = pathFile && existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const bin = override ? join(override, name || 'electron') : name && join(dirname(pathFile), 'dist', name);
  return bin && existsSync(bin) ? bin : undefined;
}

async function headless(reason) {
  console.log(`${reason} Spillway runs headless: once it listens, it prints a link to open its window in your browser.`);
  const { main } = await import('../../dist/electron/cli/main.js');
  process.exitCode = await main(['serve', ...process.argv.slice(2)]);
}

const bin = process.env.SPILLWAY_HEADLESS ? undefined : electronBinary();
if (process.env.SPILLWAY_HEADLESS) await headless('SPILLWAY_HEADLESS is set, so');
else if (!bin) await headless("Electron's binary is not installed here, so");
else {
  // The app writes this file once Electron is ready (main.ts): an exit before that is Electron failing to start.
  const upDir = mkdtempSync(join(tmpdir(), 'spillway-start-'));
  const upFile = join(upDir, 'up');
  const child = spawn(bin, [root], { stdio: 'inherit', env: { ...process.env, SPILLWAY_UP_FILE: upFile } });
  let ended = false;
  /** Once per run: a failed spawn may report both 'error' and 'exit'. */
  const end = (code, signal, why) => {
    if (ended) return;
    ended = true;
    const wasUp = existsSync(upFile);
    rmSync(upDir, { recursive: true, force: true });
    if ((why || signal !== null || code !== 0) && !wasUp) {
      // Exit 0 before 'ready' is fine (another Spillway had the single-instance lock and showed its window).
      why ??= `Electron ${signal ? `was ended by ${signal}` : `exited with code ${code}`}; its message above says why`;
      void headless(`The desktop app could not start here (${why}), so`);
      return;
    }
    // A signal death is a failure: the shell must not see success (128 + n, as shells report it).
    process.exit(signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1));
  };
  child.on('error', (err) => end(null, null, err.message));
  child.on('exit', (code, signal) => end(code, signal));
}

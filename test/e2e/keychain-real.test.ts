/**
 * The real OS keychain on Linux (issue 15): the built hub runs inside a private D-Bus session with
 * gnome-keyring unlocked on a temp HOME, so the Secret Service it talks to is real and leaves nothing on
 * the machine. A server's env value goes to the keychain (no secrets.enc, no value in config.json), its
 * child gets it, also after a restart, and removing the server forgets it; a value too long for one Windows
 * Credential Manager entry is kept in parts and read back whole. Needs `dbus-run-session` and
 * `gnome-keyring-daemon` (.ci/run installs gnome-keyring from Debian); skipped, saying so, without them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../support/hub-harness.js';

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const keyringHere = has('dbus-run-session') && has('gnome-keyring-daemon');
if (!keyringHere) console.warn('keychain-real: dbus-run-session or gnome-keyring-daemon missing (apt-get install gnome-keyring); skipped');

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-keyring-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** Runs the probe in its own session bus with an unlocked login keyring; resolves with its JSON line. */
function probe(dataDir: string, secret: string): Promise<Record<string, unknown>> {
  const script = `eval "$(printf %s spillway-test | gnome-keyring-daemon --unlock --components=secrets)" >/dev/null; exec node "$0" "$1" "$2"`;
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', script, fixture('keychain-hub-probe.mjs'), dataDir, secret], {
    env: { ...process.env, HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: home, DBUS_SESSION_BUS_ADDRESS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line));
      else reject(new Error(`probe exited ${code}: ${err.slice(-2000)}`));
    });
  });
}

describe.skipIf(!keyringHere)('the real OS keychain (gnome-keyring in a private D-Bus session)', () => {
  it('keeps a server secret in the keychain, never in the data folder, across a restart, and forgets it', async () => {
    const secret = 'ghp_RealKeychain0Value9xyz';
    const result = await probe(join(home, 'spillway-data'), secret);
    expect(result).toMatchObject({
      store: 'keychain',
      childGotValue: true,
      inKeychain: true,
      configHasValue: false,
      afterRestart: true,
      forgotten: true,
    });
    expect(result.dataFiles).not.toContain('secrets.enc');
    expect(result.dataFiles).not.toContain('secrets.key');
    expect(result.keychainEntries).toBe(1);
  }, 60_000);

  it('keeps a value longer than one Windows Credential Manager entry holds (1280 characters) in parts, and forgets them all', async () => {
    const secret = `eyJhbGciOiJSUzI1NiJ9.${'LongTokenPart0123456789'.repeat(120)}.sig`;
    const result = await probe(join(home, 'spillway-data'), secret);
    expect(result).toMatchObject({
      store: 'keychain',
      childGotValue: true,
      inKeychain: true,
      configHasValue: false,
      afterRestart: true,
      forgotten: true,
    });
    expect(result.keychainEntries).toBe(3);
    expect(result.longestEntry).toBeLessThanOrEqual(1280);
  }, 60_000);
});

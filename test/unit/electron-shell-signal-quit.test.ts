/**
 * The desktop app ended by a signal (Linux logout or shutdown, systemd, `kill`; Ctrl+C on `npm start` is
 * SIGINT) quits as the tray's Quit does: through the quit gate, so the hub stops, hub.json says
 * "stopped", hub.lock goes and the ledger keeps the call. Without a listener of the app's own, the hub's
 * child reaper re-sent the signal with its default action and the process died on the spot. The built
 * shell runs against the electron double in a child process (test/support/shell-signal-child.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT } from '../support/hub-harness.js';
import { spawnUntil } from '../support/processes.js';
import { fixtureServerConfig } from '../support/shell-folders.js';

const tmps: string[] = [];
const kids: ChildProcess[] = [];
afterEach(() => {
  for (const k of kids.splice(0)) if (k.exitCode === null && k.signalCode === null) k.kill('SIGKILL');
  for (const t of tmps.splice(0)) rmSync(t, { recursive: true, force: true });
});

async function runApp(mode: 'signal' | 'quit') {
  const tmp = mkdtempSync(join(tmpdir(), 'spillway-shell-signal-'));
  tmps.push(tmp);
  mkdirSync(join(tmp, 'home'));
  writeFileSync(join(tmp, 'config.json'), JSON.stringify(fixtureServerConfig(0)));
  // The child prints READY once its tray says the server is ready.
  const { child, output } = await spawnUntil(process.execPath, ['--import', 'tsx/esm', join(ROOT, 'test/support/shell-signal-child.ts')], /READY/, {
    cwd: ROOT,
    env: { ...process.env, SHELL_TMP: tmp, ...(mode === 'quit' ? { SHELL_QUIT_ON_INPUT: '1' } : {}) },
  });
  kids.push(child);
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const dataDir = join(tmp, 'appData', 'Spillway');
  const record = JSON.parse(readFileSync(join(dataDir, 'hub.json'), 'utf8'));
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  // One tool call through the hub, as an AI app makes it.
  const client = new Client({ name: 'signal-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(record.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const res = await client.callTool({ name: 'fx__noop', arguments: {} });
  expect(res.isError).toBeFalsy();
  await client.close().catch(() => undefined);
  return { child, exited, dataDir, output };
}

const ledgerLines = (dataDir: string) => {
  const dir = join(dataDir, 'ledger');
  if (!existsSync(dir)) return 0;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map(
      (f) =>
        readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .filter((l) => l.includes('"call"') || l.includes('noop')).length,
    )
    .reduce((a, b) => a + b, 0);
};

// Windows has no such signals: a process is ended there at once (the session's end is electron-session-end-window.test.ts).
describe.skipIf(process.platform === 'win32')('the desktop app ended by a signal', () => {
  it('the tray’s Quit (for comparison): hub.json "stopped", no hub.lock, the call in the ledger', async () => {
    const app = await runApp('quit');
    app.child.stdin!.write('quit\n');
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(app.output()).toContain('BEFORE-QUIT');
    expect(JSON.parse(readFileSync(join(app.dataDir, 'hub.json'), 'utf8')).state).toBe('stopped');
    expect(existsSync(join(app.dataDir, 'hub.lock'))).toBe(false);
    expect(ledgerLines(app.dataDir)).toBeGreaterThan(0);
  }, 60_000);

  // SIGTERM: logout, shutdown, systemd, `kill`; SIGHUP: the terminal closed; SIGINT: Ctrl+C on `npm start`.
  it.each(['SIGTERM', 'SIGHUP', 'SIGINT'] as const)(
    '%s goes through the same quit: hub stopped, ledger flushed',
    async (signal) => {
      const app = await runApp('signal');
      app.child.kill(signal);
      const how = await app.exited;
      const record = JSON.parse(readFileSync(join(app.dataDir, 'hub.json'), 'utf8'));
      const report = {
        how,
        beforeQuit: app.output().includes('BEFORE-QUIT'),
        hubJsonState: record.state,
        hubLockLeft: existsSync(join(app.dataDir, 'hub.lock')),
        ledgerCallLines: ledgerLines(app.dataDir),
      };
      expect(report).toMatchObject({ how: { code: 0, signal: null }, beforeQuit: true, hubJsonState: 'stopped', hubLockLeft: false });
      expect(report.ledgerCallLines).toBeGreaterThan(0);
    },
    60_000,
  );
});

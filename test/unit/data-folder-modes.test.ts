/**
 * The data folder and what the hub writes in it are owner-only on Unix: tool arguments (event log),
 * counts per tool (ledger) and results sit there. The folder is tightened when a hub claims it
 * (hub-record.ts, claimDataFolder), wherever the bridge socket goes: a data folder whose path is too long
 * has its socket in /tmp/spillway-<uid>, and then the socket's folder is not the data folder. The event
 * log's and the ledger's folders and files are made owner-only (jsonl-journal.ts).
 */
import { chmod, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimDataFolder } from '../../electron/core/app/hub-record.js';
import { JsonlJournal } from '../../electron/core/log/jsonl-journal.js';
import { ToolPins } from '../../electron/core/policy/tool-pins.js';
import { testPaths } from '../support/hub-harness.js';

let root: string;
const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-modes-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe.skipIf(process.platform === 'win32')('data folder modes', () => {
  it('tightens a data folder others can read when its socket is elsewhere', async () => {
    const dataDir = join(root, 'data');
    const paths = testPaths(dataDir);
    await mkdir(paths.logDir, { recursive: true });
    await mkdir(paths.ledgerDir, { recursive: true });
    for (const dir of [dataDir, paths.logDir, paths.ledgerDir]) await chmod(dir, 0o755);
    const socketDir = join(root, 'sockets');
    await mkdir(socketDir, { mode: 0o700 });

    const claim = await claimDataFolder(paths, join(socketDir, 'hub.sock'));
    try {
      expect(await modeOf(dataDir)).toBe(0o700);
      expect(await modeOf(paths.logDir)).toBe(0o700);
      expect(await modeOf(paths.ledgerDir)).toBe(0o700);
    } finally {
      await claim.release();
    }
  });

  it("makes a journal's folder and files owner-only", async () => {
    const dir = join(root, 'logs');
    const journal = new JsonlJournal({ dir, name: 'events', daily: true });
    journal.append({ argumentsPreview: 'a private question' });
    await journal.close();

    expect(await modeOf(dir)).toBe(0o700);
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(await modeOf(join(dir, files[0]!))).toBe(0o600);
  });

  it('writes the tool pins file owner-only', async () => {
    const file = join(root, 'tool-pins.json');
    const pins = await ToolPins.open({ file });
    expect(pins.check('files', { name: 'read_file', description: 'Reads a file.', inputSchema: { type: 'object' } })).toBe('new');
    await pins.flush();
    expect(await modeOf(file)).toBe(0o600);
  });
});

/**
 * Several Spillways may connect one app (another data folder, another port and token). Restore on a file
 * changed since takes back only this Spillway's own "spillway" entry: the one its writes left, or one written
 * from its data folder. Another Spillway's entry is neither removed nor overwritten; Restore refuses, says
 * why and what to do, and changes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  CLIENT_DEFINITIONS,
  createClientRegistry,
  RestoreConflictError,
  type ClientRegistry,
  type OsFacts,
  type SpillwayEntry,
} from '../../electron/core/clients/index.js';
import { bearerOf } from '../../electron/core/clients/entry-owner.js';

const HTTP: SpillwayEntry = { kind: 'http', url: 'http://127.0.0.1:4810/mcp', headers: { Authorization: 'Bearer tok_abc1234567890' } };
/** The entry another Spillway writes: its own port and token. */
const OTHER = { url: 'http://127.0.0.1:5999/mcp', headers: { Authorization: 'Bearer other_spillway_token_xyz' } };

let root: string;
let os: OsFacts;
let registry: ClientRegistry;
let file: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-restore-other-'));
  os = { home: join(root, 'home'), platform: 'linux', env: { HOME: join(root, 'home') } };
  registry = createClientRegistry({ os, backupDir: join(root, 'backups') });
  file = (await CLIENT_DEFINITIONS.cursor.locate(os, async () => [])).files[0];
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, '{"mcpServers": {}}');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** As another program does: reads the file, changes its servers, writes it all again. */
async function rewrite(change: (servers: Record<string, unknown>) => void): Promise<void> {
  const doc = JSON.parse(await readFile(file, 'utf8')) as { mcpServers: Record<string, unknown> };
  change(doc.mcpServers);
  await writeFile(file, JSON.stringify(doc, null, 2));
}

async function refused(ours?: Parameters<ClientRegistry['restore']>[1]): Promise<Error> {
  const before = await readFile(file);
  const err = await registry.restore('cursor', ours).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(err).toBeInstanceOf(RestoreConflictError);
  expect(await readFile(file)).toEqual(before);
  return err!;
}

describe('Restore with another Spillway’s entry in the file', () => {
  it('does not remove the entry another Spillway wrote after our Connect', async () => {
    await registry.connect('cursor', HTTP);
    await rewrite((s) => {
      s.spillway = OTHER;
      s.mine = { command: 'x' };
    });
    const err = await refused();
    expect(err.message).toMatch(/“spillway” entry that this Spillway did not write: another Spillway.*Nothing was changed/s);
    expect(err.message).toMatch(/disconnect Cursor in the other Spillway.*then restore again/s);
  });

  it('does not overwrite the entry another Spillway wrote after our Disconnect', async () => {
    await registry.connect('cursor', HTTP);
    await registry.disconnect('cursor');
    await rewrite((s) => (s.spillway = OTHER));
    await refused();
    expect(JSON.parse(await readFile(file, 'utf8')).mcpServers.spillway).toEqual(OTHER);
  });

  it('goes on once the other entry is gone', async () => {
    await registry.connect('cursor', HTTP);
    await registry.disconnect('cursor');
    await rewrite((s) => (s.spillway = OTHER));
    await refused();
    await rewrite((s) => delete s.spillway);
    await registry.restore('cursor');
    expect((await registry.readServers('cursor')).find((s) => s.name === 'spillway')).toMatchObject({ url: HTTP.url });
  });
});

describe('Restore with this Spillway’s entry changed since', () => {
  it('takes back the entry a repair of ours left', async () => {
    await registry.connect('cursor', HTTP);
    await rewrite((s) => (s.mine = { command: 'x' }));
    await registry.connect('cursor', { ...HTTP, url: 'http://127.0.0.1:4999/mcp' }, 'repair');
    await registry.restore('cursor');
    expect(JSON.parse(await readFile(file, 'utf8')).mcpServers).toEqual({ mine: { command: 'x' } });
  });

  it('takes back an entry the app rewrote in its own way when it was written from this data folder', async () => {
    await registry.connect('cursor', HTTP);
    // The app adds a field of its own to the entry: it is no longer the entry Spillway wrote, byte for byte.
    await rewrite((s) => ((s.spillway as Record<string, unknown>).type = 'http'));
    await refused();
    await registry.restore('cursor', (spec) => bearerOf(spec) === 'tok_abc1234567890');
    expect(JSON.parse(await readFile(file, 'utf8')).mcpServers).toEqual({});
  });
});

/**
 * Connect and Disconnect when a disk refuses a write (full, over quota, read-only, no permission): the
 * app's token and the backup go in the data folder, the new text in the app's own folder. The answer says
 * which folder's disk, that nothing was changed and what to do, as a settings save does, instead of
 * "ENOSPC: no space left on device, write". The error is injected at the file's opening (tests run as
 * root, where a read-only folder is no bar; a full tmpfs needs a mount).
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClientTokens } from '../../electron/core/clients/client-tokens.js';
import { ClientsService } from '../../electron/core/clients/clients-service.js';
import { createClientRegistry } from '../../electron/core/clients/index.js';
import { clientsHandlers } from '../../electron/core/control/clients-handlers.js';
import { ControlDispatcher } from '../../electron/core/control/control-handlers.js';

/** Files opened under this folder fail with `refusal` (the disk holding it refuses). */
const disk: { refusing?: string; refusal?: string } = {};
vi.mock('node:fs/promises', async (importActual) => {
  const actual = await importActual<typeof import('node:fs/promises')>();
  const open = (async (path: string, ...rest: unknown[]) => {
    if (disk.refusing && String(path).startsWith(disk.refusing)) {
      throw Object.assign(new Error(`${disk.refusal}: refused, open '${String(path)}'`), { code: disk.refusal, path: String(path) });
    }
    return (actual.open as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof actual.open;
  return { ...actual, default: { ...actual, open }, open };
});

let root: string;
let home: string;
let data: string;
const cursorFile = () => join(home, '.cursor', 'mcp.json');
const ORIGINAL = '{"mcpServers":{"fs":{"command":"npx"}}}\n';

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-clients-full-'));
  home = join(root, 'home');
  data = join(root, 'data');
  await mkdir(join(home, '.cursor'), { recursive: true });
  await mkdir(data, { recursive: true });
  await writeFile(cursorFile(), ORIGINAL);
  delete disk.refusing;
});
afterEach(async () => {
  delete disk.refusing;
  await rm(root, { recursive: true, force: true });
});

async function control() {
  const tokens = await ClientTokens.open(join(data, 'client-tokens.json'));
  const registry = createClientRegistry({ os: { home, platform: 'linux', env: { HOME: home } }, backupDir: join(data, 'backups') });
  const service = new ClientsService({
    registry,
    tokens,
    host: {
      endpoint: () => ({ url: 'http://127.0.0.1:47821/mcp' }),
      upstreamConfigs: () => ({}),
      addUpstream: async () => ({ id: 'x' }),
      lastSeen: () => undefined,
    },
    bridge: { command: '/opt/Spillway/spillway', args: ['/opt/Spillway/spillway.js', 'bridge'] },
    dataDir: data,
    platform: 'linux',
  });
  return { dispatcher: new ControlDispatcher(clientsHandlers(async () => service)), tokens };
}

function refuse(folder: string, code: string) {
  disk.refusing = folder;
  disk.refusal = code;
}

async function refused(answer: unknown): Promise<string> {
  expect(answer).toMatchObject({ ok: false, code: 'unavailable' });
  const message = (answer as { message: string }).message;
  expect(message).not.toMatch(/ENOSPC|EDQUOT|EROFS|EACCES|EPERM/);
  expect(await readFile(cursorFile(), 'utf8')).toBe(ORIGINAL);
  expect((await readdir(join(home, '.cursor'))).filter((n) => n.includes('spillway'))).toEqual([]);
  return message;
}

describe('Connect when a disk refuses the write', () => {
  it.each([
    ['ENOSPC', 'the disk holding DIR is full', 'Free some space on it'],
    ['EDQUOT', 'your disk quota for DIR is used up', 'Free some space there'],
    ['EROFS', 'DIR is on a disk that is read-only', 'Make it writable'],
    ['EACCES', 'Spillway is not allowed to write in DIR', 'Give your user write access to that folder'],
  ])('%s in the data folder (the app token): names the folder, says nothing changed and what to do', async (code, said, next) => {
    const { dispatcher } = await control();
    refuse(data, code);
    const message = await refused(await dispatcher.dispatch('clients.connect', { id: 'cursor' }));
    expect(message).toContain(join(data, 'client-tokens.json'));
    expect(message).toContain(said.replace('DIR', data));
    expect(message).toContain('Nothing was changed');
    expect(message).toContain(next);
  });

  it('the preview, which makes the token, says the same', async () => {
    const { dispatcher } = await control();
    refuse(data, 'ENOSPC');
    const message = await refused(await dispatcher.dispatch('clients.preview', { id: 'cursor' }));
    expect(message).toContain(`the disk holding ${data} is full`);
  });

  it('ENOSPC for the backup (the token already made): names the backups folder', async () => {
    const { dispatcher, tokens } = await control();
    await tokens.ensure('cursor');
    refuse(join(data, 'backups'), 'ENOSPC');
    const message = await refused(await dispatcher.dispatch('clients.connect', { id: 'cursor' }));
    expect(message).toContain(
      `Cannot write ${cursorFile()}: its backup cannot be saved, as the disk holding ${join(data, 'backups', 'cursor')} is full`,
    );
    expect(message).toContain('Nothing was changed');
  });

  it("ENOSPC in the app's own folder: names that folder", async () => {
    const { dispatcher, tokens } = await control();
    await tokens.ensure('cursor');
    refuse(join(home, '.cursor'), 'ENOSPC');
    const message = await refused(await dispatcher.dispatch('clients.connect', { id: 'cursor' }));
    expect(message).toContain(`Cannot write ${cursorFile()}: the disk holding ${join(home, '.cursor')} is full`);
    expect(message).toContain('Nothing was changed');
  });

  it('connects once the disk has room again', async () => {
    const { dispatcher } = await control();
    refuse(data, 'ENOSPC');
    await refused(await dispatcher.dispatch('clients.connect', { id: 'cursor' }));
    delete disk.refusing;
    expect(await dispatcher.dispatch('clients.connect', { id: 'cursor' })).toMatchObject({ ok: true });
    expect(JSON.parse(await readFile(cursorFile(), 'utf8')).mcpServers.spillway.url).toBe('http://127.0.0.1:47821/mcp');
  });
});

describe('Disconnect when the token cannot be revoked', () => {
  it('says the entry was taken out, but the token still works, and what to do', async () => {
    const { dispatcher } = await control();
    expect(await dispatcher.dispatch('clients.connect', { id: 'cursor' })).toMatchObject({ ok: true });
    refuse(join(data, 'client-tokens.json'), 'ENOSPC');
    const answer = await dispatcher.dispatch('clients.disconnect', { id: 'cursor' });
    expect(answer).toMatchObject({ ok: false, code: 'unavailable' });
    const message = (answer as { message: string }).message;
    expect(message).not.toContain('ENOSPC');
    expect(message).toContain(`the disk holding ${data} is full`);
    expect(message).toMatch(/taken out of .*mcp\.json.*could not be revoked/);
    expect(JSON.parse(await readFile(cursorFile(), 'utf8')).mcpServers.spillway).toBeUndefined();
  });
});

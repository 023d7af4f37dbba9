/**
 * The catalog's runtime check looks in the PATH servers start with (audit s12, plat item 1). A desktop app
 * opened from Finder or the Dock gets launchd's bare PATH, while its servers start with the login shell's
 * PATH, where Homebrew and uv's installer put their programs: the check must not call uvx missing when a
 * server started with uvx would run. The login shell here is a script that reads its rc file, as zsh
 * reads .zprofile; the "uvx" it finds serves MCP (env-echo-server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFile, chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RegistryOption } from '../../shared/api-registry.js';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { fixture, ROOT } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';
import { callApi, nextHubEvent, startRegistryHub, waitForStatus } from '../support/registry-hub.js';

const REGISTRY_FIXTURE = join(ROOT, '..', 'shared', 'registry-fixture', 'server.mjs');
const PYPI = 'io.github.domdomegg/time-mcp-pypi';

let registry: Started & { url: string };
let app: AppHub;
let dir: string;
let home: string;

const uvxOption = async () => {
  const r = await callApi<{ options: RegistryOption[] }>(app, 'registry.get', { name: PYPI });
  expect(r.ok).toBe(true);
  return r.value!.options[0];
};

describe.skipIf(process.platform === 'win32')('the runtime check on a GUI-launched app', () => {
  beforeAll(async () => {
    const started = await spawnUntil(process.execPath, [REGISTRY_FIXTURE, '--port', '0'], /REGISTRY-FIXTURE (http:\/\/\S+)/);
    registry = { ...started, url: started.match[1] };
    dir = await mkdtemp(join(tmpdir(), 'spillway-server-path-'));
    home = join(dir, 'home');
    await mkdir(home, { recursive: true });
    // The rc file: nothing on the PATH until uv's installer adds its folder.
    await writeFile(join(home, '.zprofile'), '# brew shellenv would be here\n');
    const shell = join(dir, 'login-shell');
    await writeFile(shell, '#!/bin/sh\n. "$HOME/.zprofile"; export PATH; exec /bin/sh -c "$2"\n');
    await chmod(shell, 0o755);
    // The app's own PATH is an empty folder (startRegistryHub), as launchd's has no uvx.
    app = await startRegistryHub({ dir, registryUrl: registry.url, useLoginShellPath: true, env: { SHELL: shell, HOME: home } });
  }, 60_000);

  afterAll(async () => {
    await app?.hub.stop();
    await registry?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('says uvx is missing before it is installed, then finds it where the login shell does, and the server runs', async () => {
    const before = await uvxOption();
    expect(before.runtime).toMatchObject({ command: 'uvx', present: false });

    // What uv's installer does: uvx into ~/.local/bin, and that folder added to the shell's rc file.
    const localBin = join(home, '.local', 'bin');
    await mkdir(localBin, { recursive: true });
    await writeFile(join(localBin, 'uvx'), `#!/bin/sh\nexec "${process.execPath}" "${fixture('env-echo-server.mjs')}" --echo PATH\n`);
    await chmod(join(localBin, 'uvx'), 0o755);
    await appendFile(join(home, '.zprofile'), `export PATH="${localBin}:$PATH"\n`);

    // "Install it, then add the server again": no restart of the app.
    expect((await uvxOption()).runtime).toEqual({ command: 'uvx', present: true });
    const echoed = nextHubEvent(app, (e) => e.type === 'upstream.stderr' && e.line.includes('env-echo-server: PATH='), 'the PATH echo');
    const added = await callApi<{ id: string }>(app, 'registry.add', { name: PYPI, package: 0, values: {} });
    expect(added).toMatchObject({ ok: true });
    await waitForStatus(app, added.value!.id, 'ready');
    // The server started with the PATH the check looked in.
    expect(await echoed).toMatchObject({ line: expect.stringContaining(`PATH=${localBin}:`) });
  });
});

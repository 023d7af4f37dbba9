/**
 * An MCPB bundle through Servers → Browse in Chromium (issue 16): a tiny local registry lists one entry
 * whose bundle it also serves (a real bundle, test/support/registry-settings-bundle.ts, with a required secret setting
 * and a bounded number). The detail page says the form downloads the bundle; the form shows the bundle's
 * own settings (the secret masked, the number's bounds, its default filled); a number out of bounds is
 * named under its field; Add lands on the server Ready, the secret absent from config.json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { openSection, saveScreenshot, type OpenedPage } from '../support/browser.js';
import { sha256 } from '../support/mcpb-bundle.js';
import { buildSettingsBundle } from '../support/registry-settings-bundle.js';
import { openHubUi, requireRendererBuild, startRegistryHub } from '../support/registry-hub.js';
import type { AppHub } from '../../electron/core/app/app-hub.js';

const NAME = 'io.github.spillway-tests/echo-bundle';
const SECRET = 'sk-ui-bundle-secret-0042';

let dir: string;
let registry: Server;
let serveCorrupt = false;
let corrupt: () => Buffer;
let app: AppHub;
let browser: Browser;
let opened: OpenedPage;
let page: Page;

beforeAll(async () => {
  const uiDir = requireRendererBuild();
  dir = await mkdtemp(join(tmpdir(), 'spillway-browse-bundle-'));
  const bundle = await buildSettingsBundle(dir, 'echo-bundle');
  let base = '';
  // While set, the bundle's bytes differ from its published SHA-256 (a changed or damaged download).
  corrupt = () => Buffer.concat([bundle, Buffer.from('tampered')]);
  const entry = () => ({
    server: {
      name: NAME,
      description: 'The echo server as an MCPB bundle.',
      version: '1.0.0',
      packages: [
        { registryType: 'mcpb', identifier: `${base}/files/echo.mcpb`, version: '1.0.0', fileSha256: sha256(bundle), transport: { type: 'stdio' } },
      ],
    },
    _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } },
  });
  registry = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/files/echo.mcpb')
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(serveCorrupt ? corrupt() : bundle);
    if (url.pathname === '/v0.1/servers') return json({ servers: [entry()], metadata: { count: 1 } });
    if (
      url.pathname === `/v0.1/servers/${encodeURIComponent(NAME)}/versions/latest` ||
      url.pathname === `/v0.1/servers/${encodeURIComponent(NAME)}/versions/1.0.0`
    )
      return json(entry());
    if (url.pathname === `/v0.1/servers/${encodeURIComponent(NAME)}/versions`) return json({ servers: [entry()], metadata: { count: 1 } });
    res.writeHead(404, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ detail: 'Not found' }));
  });
  await new Promise<void>((ok) => registry.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;

  // No node on the PATH: the bundle runs on the hub's own runtime.
  app = await startRegistryHub({ dir, registryUrl: base, uiDir });
  ({ browser, opened, page } = await openHubUi(app));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.hub.stop();
  await new Promise((ok) => registry?.close(ok));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("Browse: an MCPB bundle's own settings in Chromium", () => {
  it('a download that does not match its published checksum is refused in plain words, nothing left behind', async () => {
    serveCorrupt = true;
    await openSection(page, 'Servers');
    await page.getByRole('tab', { name: 'Browse' }).click();
    await page.getByRole('button', { name: 'echo-bundle', exact: true }).click();
    const detail = page.getByRole('article', { name: 'echo-bundle', exact: true });
    await detail.getByRole('button', { name: 'Set up this bundle' }).click();
    await page
      .getByText(/does not match its published checksum/)
      .first()
      .waitFor();
    await saveScreenshot(page, 'browse-bundle-checksum-800x600');
    expect(await readdir(join(dir, 'data', 'bundles')).catch(() => [])).toEqual([]);
    expect(JSON.parse(await readFile(join(dir, 'data', 'config.json'), 'utf8')).servers).toEqual({});
    serveCorrupt = false;
    await page.getByRole('button', { name: /Back to the list/ }).click();
  });

  it('the detail page says the form downloads the bundle to read its settings', async () => {
    await openSection(page, 'Servers');
    await page.getByRole('tab', { name: 'Browse' }).click();
    await page.getByRole('button', { name: 'echo-bundle', exact: true }).click();
    const detail = page.getByRole('article', { name: 'echo-bundle', exact: true });
    await detail.getByText('Downloads the bundle to read its settings.').waitFor();
    await detail.getByRole('button', { name: 'Set up this bundle' }).click();
  });

  it("the form shows the bundle's settings: the secret masked, the number's bounds and default", async () => {
    const form = page.getByRole('form', { name: /Set up MCPB bundle/ });
    const settings = form.getByRole('group', { name: 'Bundle settings' });
    const key = settings.getByLabel(/API key/);
    expect(await key.getAttribute('type')).toBe('password');
    const limit = settings.getByLabel(/Limit/);
    expect(await limit.inputValue()).toBe('5');
    await settings.getByText('How many at most. Between 1 and 10.').waitFor();
    await saveScreenshot(page, 'browse-bundle-form-800x600');

    await key.fill(SECRET);
    await limit.fill('11');
    await form.getByRole('button', { name: 'Add' }).click();
    expect(await form.getByRole('alert').textContent()).toBe('Limit: must be at most 10');
  });

  it('adds the bundle with its settings; the user lands on its status, Ready; the secret is not in config.json', async () => {
    const form = page.getByRole('form', { name: /Set up MCPB bundle/ });
    await form.getByRole('group', { name: 'Bundle settings' }).getByLabel(/Limit/).fill('7');
    await form.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('tab', { name: 'Installed', selected: true }).waitFor();
    const card = page.getByRole('article', { name: NAME });
    await card.getByText('Ready', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await readFile(join(dir, 'data', 'config.json'), 'utf8')).not.toContain(SECRET);
    expect(opened.errors).toEqual([]);
  }, 90_000);
});

/**
 * Servers → Browse end to end (issue 16): the built renderer served by a real in-process hub whose
 * registry URL is the shared registry fixture, driven in Debian's Chromium at 800x600. Searches with
 * Enter, opens airtable-mcp-server's detail page (npm runs, Docker missing), picks an older version and back, fills its
 * secret in the generated form and adds it. Nothing comes from the network: the package is installed from
 * the local npm registry fixture (a real MCP server, server-memory, published there under the entry's
 * name) into the data folder and runs with the hub's own runtime, no node or npx on the hub's PATH, so
 * the added server comes up Ready with tools; then Update switches it to the fixture's newer version.
 * Screenshots of the list and the detail page go to test-artifacts/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { fixture, NODE, ROOT } from '../support/hub-harness.js';
import { openSection, saveScreenshot, type OpenedPage } from '../support/browser.js';
import { spawnUntil, type Started } from '../support/processes.js';
import { openHubUi, requireRendererBuild, startRegistryHub } from '../support/registry-hub.js';
import type { AppHub } from '../../electron/core/app/app-hub.js';

const FIXTURE = join(ROOT, '..', 'shared', 'registry-fixture', 'server.mjs');

let registry: Started & { url: string };
let npm: Started & { url: string };
let dir: string;
let app: AppHub;
let browser: Browser;
let opened: OpenedPage;
let page: Page;

beforeAll(async () => {
  const uiDir = requireRendererBuild();
  const started = await spawnUntil(NODE, [FIXTURE, '--port', '0', '--page-size', '5'], /REGISTRY-FIXTURE (http:\/\/\S+)/);
  registry = { ...started, url: started.match[1] };

  dir = await mkdtemp(join(tmpdir(), 'spillway-browse-'));
  // The hub's PATH is an empty folder; npm packages come from the local npm registry fixture.
  const npmStarted = await spawnUntil(
    NODE,
    [fixture('npm-registry-fixture.mjs'), '--port', '0', '--as', 'airtable-mcp-server@1.7.3'],
    /NPM-REGISTRY-FIXTURE (http:\/\/\S+)/,
  );
  npm = { ...npmStarted, url: npmStarted.match[1] };
  app = await startRegistryHub({ dir, registryUrl: registry.url, env: { npm_config_registry: npm.url, NPM_CONFIG_REGISTRY: undefined }, uiDir });
  ({ browser, opened, page } = await openHubUi(app));
});

afterAll(async () => {
  await browser?.close();
  await app?.hub.stop();
  await registry?.stop();
  await npm?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('Browse in Chromium against the real hub and the registry fixture', () => {
  it('lists the registry, pages on, and searches with Enter', async () => {
    await openSection(page, 'Servers');
    await page.getByRole('tab', { name: 'Browse' }).click();
    const list = page.getByRole('list', { name: 'Servers in the registry' });
    await list.getByRole('listitem').nth(4).waitFor();
    expect(await list.getByRole('listitem').count()).toBe(5);
    await saveScreenshot(page, 'browse-800x600');

    await page.getByRole('button', { name: 'More servers' }).click();
    await list.getByRole('listitem').nth(9).waitFor();

    // The title as the list shows it finds its server, though the registry searches names only.
    const search = page.getByLabel('Search servers', { exact: true });
    await search.fill('Redis MCP Server');
    await search.press('Enter');
    await list.getByRole('button', { name: 'Redis MCP Server', exact: true }).waitFor();

    await search.fill('airtable');
    await search.press('Enter');
    await list.getByRole('button', { name: 'airtable-mcp-server', exact: true }).waitFor();
    await expect.poll(() => list.getByRole('listitem').count()).toBe(1);
  });

  it("the detail page says what each option runs; Docker missing is said in the hub's plain words", async () => {
    await page.getByRole('button', { name: 'airtable-mcp-server', exact: true }).click();
    const detail = page.getByRole('article', { name: 'airtable-mcp-server', exact: true });
    await detail.getByText("Installs airtable-mcp-server 1.7.3 into Spillway's data folder", { exact: false }).waitFor();
    expect(await detail.getByRole('note').textContent()).toMatch(/needs Docker.*docker\.com/);
    expect(await detail.getByRole('link', { name: 'Source code' }).getAttribute('href')).toMatch(/^https:\/\/github\.com\//);
    await saveScreenshot(page, 'browse-detail-800x600');
  });

  it('the version picker opens an older version (what will run says so) and back to the latest', async () => {
    const detail = page.getByRole('article', { name: 'airtable-mcp-server', exact: true });
    const picker = detail.getByLabel('Version');
    expect(await picker.locator('option').allTextContents()).toEqual(['1.7.3 (latest)', '1.7.2']);
    await picker.selectOption('1.7.2');
    await detail.getByText("Installs airtable-mcp-server 1.7.2 into Spillway's data folder", { exact: false }).waitFor();
    await picker.selectOption('1.7.3');
    await detail.getByText("Installs airtable-mcp-server 1.7.3 into Spillway's data folder", { exact: false }).waitFor();
  });

  it('fills the generated form (the secret masked) and adds the server; the user lands on its status', async () => {
    const detail = page.getByRole('article', { name: 'airtable-mcp-server', exact: true });
    await detail.getByRole('button', { name: 'Set up this package' }).first().click();
    const form = page.getByRole('form', { name: /Set up npm package airtable-mcp-server/ });
    const key = form.getByLabel(/AIRTABLE_API_KEY/);
    expect(await key.getAttribute('type')).toBe('password');

    await form.getByRole('button', { name: 'Add' }).click();
    expect(await form.getByRole('alert').textContent()).toBe('AIRTABLE_API_KEY is required');
    await saveScreenshot(page, 'browse-form-800x600');

    await key.fill('patAIRTABLE-SECRET');
    await form.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('tab', { name: 'Installed', selected: true }).waitFor();
    const card = page.getByRole('article', { name: 'io.github.domdomegg/airtable-mcp-server' });
    await card.getByText('Ready', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await readFile(join(dir, 'data', 'config.json'), 'utf8')).not.toContain('patAIRTABLE-SECRET');
    expect(Number((await card.getByText(/^\d+ tools$/).textContent())?.split(' ')[0])).toBeGreaterThan(3);
    await saveScreenshot(page, 'browse-added-800x600');
    expect(opened.errors).toEqual([]);
  });

  it('offers Update when the npm registry has a newer version, and switches the server to it', async () => {
    await fetch(`${npm.url}/-/fixture`, { method: 'POST', body: JSON.stringify({ newer: true }) });
    await page.getByRole('tab', { name: 'Browse' }).click();
    await page.getByRole('button', { name: 'airtable-mcp-server', exact: true }).click();
    const detail = page.getByRole('article', { name: 'airtable-mcp-server', exact: true });
    await detail.getByText('running version 1.7.3', { exact: false }).waitFor();
    await detail.getByRole('button', { name: 'Update to 1.7.4' }).click();
    await detail.getByText('running version 1.7.4', { exact: false }).waitFor({ timeout: 60_000 });
    expect(await detail.getByRole('button', { name: /^Update to/ }).count()).toBe(0);
    expect(opened.errors).toEqual([]);
  });

  it('with the registry down: kept answers say so, and a search never made shows the servers that come with Spillway', async () => {
    await registry.stop();
    await page.getByRole('button', { name: /Back to the list/ }).click();
    // Keyboard focus goes back to the entry that was open, not to the page.
    const entry = page.getByRole('list', { name: 'Servers in the registry' }).getByRole('button', { name: 'airtable-mcp-server', exact: true });
    await expect.poll(() => entry.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    const search = page.getByLabel('Search servers', { exact: true });
    // Kept as "airtable": found whatever the case, dated in plain words.
    await search.fill('Airtable');
    await search.press('Enter');
    await page
      .getByText(/^Cached, from today at \d\d:\d\d: /)
      .first()
      .waitFor();
    await search.fill('memory');
    await search.press('Enter');
    const list = page.getByRole('list', { name: 'Servers in the registry' });
    await list.getByRole('button', { name: /Memory/ }).waitFor();
    await page
      .getByText(/come with Spillway/)
      .first()
      .waitFor();
    await saveScreenshot(page, 'browse-registry-down-800x600');
    expect(opened.errors).toEqual([]);
  });
});

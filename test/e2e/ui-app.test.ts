/**
 * The app's UI end to end: the built renderer served by a real in-process hub, driven in Debian's
 * Chromium. Adds server-everything through the form, lowers the threshold in Settings, makes an SDK
 * Client call that gets spilled and follows it into Activity and Savings, hides a tool and sees the
 * client's tools/list change, connects a client on a temporary HOME, and saves a screenshot of every view
 * (light and dark, 1280x800 and 800x600) under test-artifacts/screenshots/.
 * Waits on locators and hub events, never on sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING, NODE, ROOT, freePort, startTestHub, type TestHub } from '../support/hub-harness.js';
import { launchChromium, openPage, openSection, saveScreenshot, type OpenedPage } from '../support/browser.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { createAppHub, type AppHub } from '../../electron/core/app/app-hub.js';

const UI_DIR = join(ROOT, 'dist', 'renderer');
const VIEWS = [
  ['servers', 'Servers', 'Servers'],
  ['tools', 'Tools & policies', 'Tools & policies'],
  ['clients', 'Clients', 'Clients'],
  ['activity', 'Activity', 'Activity'],
  ['savings', 'Savings', 'Savings'],
  ['settings', 'Settings', 'Settings'],
] as const;

let hub: TestHub;
let browser: Browser;
let main: OpenedPage;
let page: Page;
let client: Client;
let echoName = '';

const appUrl = (h: { hub: AppHub['hub']; token?: string }, token: string) => `${h.hub.endpoint.origin}/?token=${token}`;

beforeAll(async () => {
  if (!existsSync(join(UI_DIR, 'index.html'))) {
    throw new Error('dist/renderer is missing: run `npx vite build --config renderer/vite.config.ts` first (npm test builds it).');
  }
  hub = await startTestHub({ version: 1, servers: {} }, { uiDir: UI_DIR });
  browser = await launchChromium();
  main = await openPage(browser, appUrl(hub, hub.token));
  page = main.page;
  // The hub trades the token for a cookie and redirects to a clean URL.
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  expect(page.url()).not.toContain('token=');
});

afterAll(async () => {
  await browser?.close();
  await hub?.stop();
});

describe('the app in Chromium against the real hub', () => {
  it('adds server-everything through the Servers form and shows it Ready with its tools', async () => {
    await page.getByRole('button', { name: 'Add server' }).click();
    const form = page.getByRole('form', { name: 'Add a server' });
    await form.getByLabel('Name', { exact: true }).fill('everything');
    await form.getByLabel('Command', { exact: true }).fill(NODE);
    await form.getByLabel('Arguments, one per line').fill(`${EVERYTHING}\nstdio`);
    await form.getByRole('button', { name: 'Add server' }).click();

    const card = page.getByRole('article', { name: 'everything' });
    await card.getByText('Ready', { exact: true }).waitFor({ timeout: 30_000 });
    const toolCount = await card.getByText(/^\d+ tools$/).textContent();
    expect(Number(toolCount?.split(' ')[0])).toBeGreaterThan(3);

    await openSection(page, 'Tools & policies');
    const tools = page.getByRole('table', { name: 'Tools of everything' });
    await tools.getByRole('rowheader', { name: /^echo/ }).waitFor();

    client = await hub.connect({}, 'e2e-client');
    const listed = await client.listTools();
    echoName = listed.tools.find((t) => t.name.endsWith('echo'))?.name ?? '';
    expect(echoName).toMatch(/everything.*echo$/);
  });

  it('lowers the threshold in Settings; a spilled call shows live in Activity, with its original, and in Savings', async () => {
    await openSection(page, 'Settings');
    // The preview must stay under the threshold: lower it first. Keyboard on the sliders, as a user could.
    const preview = page.getByLabel('Preview the model sees', { exact: true });
    await preview.focus();
    await preview.press('Home');
    await page.getByText('In force: 50 tokens').waitFor();
    const threshold = page.getByLabel('Threshold', { exact: true });
    await threshold.focus();
    await threshold.press('Home');
    await page.getByText('In force: 500 tokens').waitFor();
    expect(hub.hub.settings.spill.thresholdTokens).toBe(500);

    // Activity is open before the call, so the row must arrive live over SSE.
    await openSection(page, 'Activity');
    const message = Array.from({ length: 600 }, (_, i) => `line ${i} of a long tool result`).join('\n');
    const result = await client.callTool({ name: echoName, arguments: { message } });
    const text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
    expect(text.length).toBeLessThan(message.length);

    const row = page.getByRole('region', { name: 'Live log' }).getByRole('button', { name: /echo spilled/ });
    await row.waitFor();
    await row.click();
    const details = page.getByRole('region', { name: echoName });
    await details
      .getByLabel('Spilled original')
      .getByText(/line 0 of a long tool result/)
      .waitFor();
    expect(await details.getByLabel('Arguments').textContent()).toContain('line 0 of a long tool result');
    await saveScreenshot(page, 'activity-call-details');

    await openSection(page, 'Savings');
    await page
      .getByRole('region', { name: 'By tool' })
      .getByText(/everything · echo/)
      .waitFor();
    const allTime = page.getByRole('region', { name: 'All time' });
    const saved = await allTime.locator('.big').textContent();
    expect(saved).not.toMatch(/^0 /);
    expect((await allTime.textContent())?.replace(/\s+/g, ' ')).toContain('· 1 call');
  });

  it('hides a tool in Tools & policies and the SDK client’s tools/list changes', async (ctx) => {
    const offered = await hub.api('policies.get');
    if (!offered.ok) {
      ctx.skip(`policies.* is not wired into the hub yet (${offered.code}); skipped`);
      return;
    }
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    await openSection(page, 'Tools & policies');
    const visible = page.getByLabel('Visible: echo', { exact: true });
    await visible.uncheck();
    await page.getByRole('table', { name: 'Tools of everything' }).locator('tr.hidden-tool').getByText('echo', { exact: true }).waitFor();
    await changed;
    const after = await client.listTools();
    expect(after.tools.map((t) => t.name)).not.toContain(echoName);

    // The row shows the edit at once (it is being saved); the client's list changes once the hub has it.
    const shownAgain = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    await visible.check();
    await page.getByRole('table', { name: 'Tools of everything' }).locator('tr.hidden-tool').waitFor({ state: 'detached' });
    await shownAgain;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain(echoName);

    // The editor shows the threshold in force and where it comes from (Settings set 500 above).
    await page.getByRole('button', { name: 'Edit policy of echo' }).click();
    const editor = page.getByRole('group', { name: 'Policy for echo' });
    await editor.getByText('In force: 500 tokens').waitFor();
    await editor.getByText('(inherited from the defaults)').first().waitFor();
    await saveScreenshot(page, 'tools-policy-editor');
    await page.getByRole('button', { name: 'Close policy of echo' }).click();
  });

  it('saves a screenshot of every view, light and dark, at 1280x800 and 800x600', async () => {
    for (const [name, label, heading] of VIEWS) {
      await openSection(page, label, heading);
      await saveScreenshot(page, name);
    }
    for (const variant of [
      { suffix: 'dark', colorScheme: 'dark' as const, width: 1280, height: 800 },
      { suffix: '800x600', colorScheme: 'light' as const, width: 800, height: 600 },
      { suffix: '800x600-dark', colorScheme: 'dark' as const, width: 800, height: 600 },
    ]) {
      const opened = await openPage(browser, appUrl(hub, hub.token), variant);
      await opened.page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
      await opened.page.getByRole('article', { name: 'everything' }).getByText('Ready', { exact: true }).waitFor();
      for (const [name, label, heading] of VIEWS) {
        await openSection(opened.page, label, heading);
        if (name === 'savings') await opened.page.getByRole('region', { name: 'All time' }).waitFor();
        await saveScreenshot(opened.page, `${name}-${variant.suffix}`);
      }
      expect(opened.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
      await opened.context.close();
    }
    expect(main.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  });
});

describe('Clients on a temporary HOME', () => {
  let dir: string;
  let home: string;
  let app: AppHub | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-ui-clients-'));
    home = join(dir, 'home');
    await mkdir(join(home, '.cursor'), { recursive: true });
    await writeFile(
      join(home, '.cursor', 'mcp.json'),
      JSON.stringify({ mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } } }, null, 2),
    );
  });
  afterAll(async () => {
    await app?.hub.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('connects Cursor after showing the exact entry, and its file gets the entry', async (ctx) => {
    const data = join(dir, 'data');
    await mkdir(data, { recursive: true });
    const os = { home, platform: 'linux' as const, env: {} };
    const paths = resolvePaths({ dataDir: data, os });
    await writeFile(paths.configFile, JSON.stringify({ version: 1, servers: {} }));
    // createAppHub takes the OS facts the clients use (clientOs); without it, this would touch the real HOME.
    // A fixed port: Cursor's entry is written only for a port that lasts (issue 13, item 5).
    app = await createAppHub({ paths, platform: 'linux', env: {}, port: await freePort(), uiDir: UI_DIR, clientOs: os });
    await app.hub.start();
    if (!app.dispatcher.has('clients.list')) {
      ctx.skip('clients.* is not wired into the hub yet; skipped');
      return;
    }

    const opened = await openPage(browser, appUrl(app, app.hub.token));
    const p = opened.page;
    await p.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
    await openSection(p, 'Clients');
    const cursor = p.getByRole('listitem', { name: 'Cursor' });
    await cursor.getByText('Not connected', { exact: true }).waitFor();
    await saveScreenshot(p, 'clients-temp-home');

    await cursor.getByRole('button', { name: 'Connect' }).click();
    const dialog = p.getByRole('dialog', { name: 'Connect Cursor' });
    const entry = await dialog.getByLabel('Entry to write').textContent();
    expect(entry).toContain('spillway');
    expect(entry).toContain(`127.0.0.1:${app.hub.endpoint.port}/mcp`);
    await saveScreenshot(p, 'clients-connect-dialog');
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await cursor.getByText('Connected', { exact: true }).waitFor();

    const written = JSON.parse(await readFile(join(home, '.cursor', 'mcp.json'), 'utf8')) as { mcpServers: Record<string, { url?: string }> };
    expect(written.mcpServers.memory).toBeTruthy();
    expect(written.mcpServers.spillway?.url).toBe(`http://127.0.0.1:${app.hub.endpoint.port}/mcp`);
    expect(opened.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
    await opened.context.close();
  });
});

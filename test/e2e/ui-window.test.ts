/**
 * The window in real Chromium at 800x600 against a real hub with server-everything twice (17 tools each),
 * for defects of issue 14: only the view scrolls, never the page (item 1); Savings follows calls live
 * (item 3); the page asks for nothing the hub does not serve (item 11, favicon).
 * Screenshots under test-artifacts/screenshots/window-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { EVERYTHING, NODE, ROOT, startTestHub, type TestHub } from '../support/hub-harness.js';
import { launchChromium, openPage, openSection, saveScreenshot, type OpenedPage } from '../support/browser.js';

const UI_DIR = join(ROOT, 'dist', 'renderer');

let hub: TestHub;
let browser: Browser;
let opened: OpenedPage;
const notFound: string[] = [];

beforeAll(async () => {
  if (!existsSync(join(UI_DIR, 'index.html'))) {
    throw new Error('dist/renderer is missing: run `npx vite build --config renderer/vite.config.ts` first (npm test builds it).');
  }
  const everything = { type: 'stdio', command: NODE, args: [EVERYTHING, 'stdio'] };
  // Two servers: the second one's table starts far below the fold, where its hidden header label sat.
  hub = await startTestHub({ version: 1, servers: { everything, more: everything } }, { uiDir: UI_DIR });
  browser = await launchChromium();
  opened = await openPage(browser, `${hub.hub.endpoint.origin}/?token=${hub.token}`, { width: 800, height: 600 });
  opened.page.on('response', (res) => {
    if (res.status() === 404) notFound.push(res.url());
  });
  for (const name of ['everything', 'more']) {
    await opened.page.getByRole('article', { name }).getByText('Ready', { exact: true }).waitFor({ timeout: 30_000 });
  }
});

afterAll(async () => {
  await browser?.close();
  await hub?.stop();
});

describe('layout at 800x600', () => {
  it('Servers: a long command line stays inside its card, which fits the view', async () => {
    const page = opened.page;
    const card = page.getByRole('article', { name: 'everything' });
    const [cardBox, mainBox] = [await card.boundingBox(), await page.locator('main.content').boundingBox()];
    expect(cardBox!.x + cardBox!.width).toBeLessThanOrEqual(mainBox!.x + mainBox!.width);
    await saveScreenshot(page, 'window-servers-800x600');
  });

  it('Tools & policies scrolls inside the view: the page never grows past the window (item 1)', async () => {
    const page = opened.page;
    await openSection(page, 'Tools & policies');
    await page.getByRole('table', { name: 'Tools of everything' }).getByRole('rowheader', { name: /^echo/ }).waitFor();
    const table = page.getByRole('table', { name: 'Tools of more' });
    await table.getByRole('rowheader', { name: /^echo/ }).waitFor();
    const content = page.locator('main.content');
    const sizes = await content.evaluate((el) => {
      const doc = el.ownerDocument;
      return {
        scroll: el.scrollHeight,
        client: el.clientHeight,
        page: doc.scrollingElement!.scrollHeight,
        pageWidth: doc.scrollingElement!.scrollWidth,
        window: doc.defaultView!.innerHeight,
        windowWidth: doc.defaultView!.innerWidth,
      };
    });
    // The list is longer than the window, and only the view's own scroll area holds it.
    expect(sizes.scroll).toBeGreaterThan(sizes.client);
    expect(sizes.page).toBe(sizes.window);
    expect(sizes.pageWidth).toBe(sizes.windowWidth);

    // Scrolling the list to its end leaves the page where it was, with its last row in view.
    await content.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await page.mouse.move(400, 300);
    await page.mouse.wheel(0, 5_000);
    expect(await content.evaluate((el) => el.ownerDocument.defaultView!.scrollY)).toBe(0);
    const last = table.getByRole('row').last();
    await expect.poll(() => last.isVisible()).toBe(true);
    await saveScreenshot(page, 'window-tools-end-800x600');
  });

  it('Savings counts a call made while it is open, without Refresh (item 3)', async () => {
    const page = opened.page;
    await openSection(page, 'Savings');
    const allTime = page.getByRole('region', { name: 'All time' });
    await allTime.waitFor();
    const text = async () => (await allTime.textContent())?.replace(/\s+/g, ' ');
    expect(await text()).not.toMatch(/· 1 call\b/);
    const client = await hub.connect({}, 'e2e-savings');
    // About 2 MB: its tokens are counted off the request path, so the ledger records it well after the event.
    const message = Array.from({ length: 60_000 }, (_, i) => `line ${i} of a long tool result`).join('\n');
    await client.callTool({ name: 'everything__echo', arguments: { message } });
    await expect.poll(text, { timeout: 10_000 }).toMatch(/· 1 call\b/);
    await page
      .getByRole('region', { name: 'By tool' })
      .getByText(/everything · echo/)
      .waitFor();
    await saveScreenshot(page, 'window-savings-live-800x600');
  });

  it('Clients keeps its header buttons together at the right, and the log shows no debug lines by default (items 7, 11)', async () => {
    const page = opened.page;
    await openSection(page, 'Clients');
    const check = page.getByRole('button', { name: 'Check again' });
    if ((await check.count()) > 0) {
      const heading = await page.getByRole('heading', { level: 1, name: 'Clients' }).boundingBox();
      const box = await check.boundingBox();
      const main = await page.locator('main.content').boundingBox();
      // Not floating in the middle of the header: in the right half, on the heading's line.
      expect(box!.x).toBeGreaterThan(main!.x + main!.width / 2);
      expect(Math.abs(box!.y + box!.height / 2 - (heading!.y + heading!.height / 2))).toBeLessThan(heading!.height);
    }
    await saveScreenshot(page, 'window-clients-800x600');

    await openSection(page, 'Activity');
    await expect.poll(() => page.getByLabel('Level').inputValue()).toBe('info');
    const rows = page.getByRole('region', { name: 'Live log' }).locator('.level');
    for (const level of await rows.allTextContents()) expect(level).not.toBe('debug');
    await saveScreenshot(page, 'window-activity-800x600');
  });

  it('asks for no file the hub does not serve: no favicon 404 (item 11)', async () => {
    await opened.page.reload();
    await opened.page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
    // Chromium asks for the icon once the page has loaded; the icon link makes that request explicit.
    const icon = await opened.page.locator('link[rel="icon"]').getAttribute('href');
    expect(icon).toBeTruthy();
    const res = await opened.page.request.get(new URL(icon!, opened.page.url()).href);
    expect(res.status()).toBe(200);
    expect(notFound).toEqual([]);
  });
});

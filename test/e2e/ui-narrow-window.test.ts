/**
 * The browser UI in a window narrower than the desktop window's 800 px, in Debian's Chromium against a
 * real hub (audit s14, window, item 5): the sections move to a bar on top, the view keeps the rest of the
 * width, nothing needs sideways scrolling, and the sections still work from the keyboard. At full width
 * the side bar stays on the left. Screenshots under test-artifacts/screenshots/narrow-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openSection, saveScreenshot } from '../support/browser.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let ui: UiInChromium;

beforeAll(async () => {
  ui = await startUiInChromium({ withBigServer: true });
});

afterAll(async () => {
  await ui?.close();
});

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How wide the page is against the window, and where the section bar and the view are. */
function layout(page: Page) {
  return page.locator('body').evaluate((body) => {
    const doc = body.ownerDocument;
    const box = (el: { getBoundingClientRect(): Box }): Box => {
      const { x, y, width, height } = el.getBoundingClientRect();
      return { x, y, width, height };
    };
    const buttons = [...doc.querySelectorAll('nav[aria-label="Sections"] button')].map(box);
    return {
      pageWidth: doc.scrollingElement!.scrollWidth,
      windowWidth: doc.defaultView!.innerWidth,
      nav: box(doc.querySelector('nav[aria-label="Sections"]')!),
      main: box(doc.querySelector('main.content')!),
      buttons,
    };
  });
}

describe('a narrow browser window', () => {
  it('at 400 px: the sections sit in a bar above the view, and nothing needs sideways scrolling', async () => {
    const { page } = await ui.open({ width: 400, height: 700 });
    await page.getByRole('article', { name: 'big' }).getByText('Ready', { exact: true }).waitFor({ timeout: 20_000 });
    const servers = await layout(page);
    expect(servers.pageWidth).toBe(servers.windowWidth);
    expect(servers.buttons).toHaveLength(6);
    for (const b of servers.buttons) expect(b.x + b.width).toBeLessThanOrEqual(400);
    expect(servers.nav.y + servers.nav.height).toBeLessThanOrEqual(servers.main.y);
    expect(servers.main.width).toBe(400);
    const card = await page.getByRole('article', { name: 'big' }).boundingBox();
    expect(card!.x + card!.width).toBeLessThanOrEqual(400);
    const add = await page.getByRole('button', { name: 'Add server' }).boundingBox();
    expect(add!.x + add!.width).toBeLessThanOrEqual(400);
    await saveScreenshot(page, 'narrow-servers-400');

    await openSection(page, 'Activity');
    const activity = await layout(page);
    expect(activity.pageWidth).toBe(activity.windowWidth);
    await saveScreenshot(page, 'narrow-activity-400');
  });

  it('at 400 px: arrow keys move along the bar and Enter opens a section', async () => {
    const { page } = await ui.open({ width: 400, height: 700 });
    const nav = page.getByRole('navigation', { name: 'Sections' });
    const hasFocus = (name: string) => nav.getByRole('button', { name }).evaluate((el) => el === el.ownerDocument.activeElement);
    await nav.getByRole('button', { name: /^Servers/ }).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await hasFocus('Clients')).toBe(true);
    await page.keyboard.press('ArrowLeft');
    expect(await hasFocus('Tools & policies')).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Tools & policies' }).waitFor();
    expect(await nav.getByRole('button', { name: 'Tools & policies' }).getAttribute('aria-current')).toBe('page');
  });

  it('at 1280 px: the sections stay in the side bar, left of the view', async () => {
    const { page } = await ui.open({ width: 1280, height: 800 });
    await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
    const wide = await layout(page);
    expect(wide.nav.x + wide.nav.width).toBeLessThanOrEqual(wide.main.x);
    expect(wide.main.y).toBe(0);
    expect(wide.nav.y).toBeLessThan(wide.main.height);
  });
});

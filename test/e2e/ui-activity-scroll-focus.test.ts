/**
 * Activity in Debian's Chromium against a real hub, where rows are laid out: the first scroll up after the
 * log opens pauses the tail (it is not taken for a resize), and opening a call's details from the keyboard
 * keeps the focus on its row, where Escape closes them (audit s15, screens, items 2 and 3).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openSection } from '../support/browser.js';
import { scrollSettled } from '../support/scroll-settled.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';
import { NODE, fixture } from '../support/hub-harness.js';

let ui: UiInChromium;

beforeAll(async () => {
  ui = await startUiInChromium({ claudeServers: {} });
  const ready = ui.hub.nextEvent((e) => e.type === 'upstream.status' && e.server === 'fx' && e.status === 'ready');
  await ui.hub.api('upstreams.add', {
    id: 'fx',
    config: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')], startMode: 'always' },
  });
  await ready;
  const client = await ui.hub.connect('activity-client');
  // Far more rows than the log shows at once.
  for (let i = 0; i < 100; i++) await client.callTool({ name: 'fx__noop', arguments: {} });
}, 60_000);

afterAll(async () => {
  await ui?.close();
});

/** The log row seq of the focused element, else its tag (BODY when the focus was lost). */
const focusedSeq = (page: Page) =>
  page.locator('body').evaluate((body) => {
    const el = body.ownerDocument.activeElement;
    return el?.getAttribute('data-seq') ?? el?.tagName;
  });

async function openActivity(): Promise<Page> {
  const { page } = await ui.open();
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await openSection(page, 'Activity');
  await page.locator('.log .row').first().waitFor();
  return page;
}

it('pauses following on the first scroll up after the log opens', async () => {
  const page = await openActivity();
  const top = () => page.locator('.log-list').evaluate((el) => el.scrollTop);
  // The list reaches its end over a few frames after it opens; scroll once it has settled there.
  const atTheEnd = () => page.locator('.log-list').evaluate((el) => el.scrollTop > 0 && el.scrollTop + el.clientHeight >= el.scrollHeight - 1);
  await expect.poll(atTheEnd).toBe(true);
  await scrollSettled(page.locator('.log-list'));
  const atEnd = await top();
  const box = (await page.locator('.log').boundingBox())!;
  await page.mouse.move(box.x + 100, box.y + 100);
  await page.mouse.wheel(0, -600);
  await page.getByRole('button', { name: /Jump to latest/ }).waitFor({ timeout: 5000 });
  // A snap back to the end would move the list in the frames after this: wait until it is still.
  await scrollSettled(page.locator('.log-list'));
  expect(await top()).toBeLessThan(atEnd);
  await page.context().close();
}, 30_000);

it('keeps the focus on the row a call was opened from with Enter, and Escape there closes the details', async () => {
  const page = await openActivity();
  const row = page.locator('.log .row').last();
  const seq = await row.getAttribute('data-seq');
  await row.focus();
  await page.keyboard.press('Enter');
  await page.locator('.details').waitFor();
  await expect.poll(() => focusedSeq(page)).toBe(seq);
  await page.keyboard.press('Escape');
  await expect.poll(() => page.locator('.details').count()).toBe(0);
  await expect.poll(() => focusedSeq(page)).toBe(seq);
  await page.context().close();
}, 30_000);

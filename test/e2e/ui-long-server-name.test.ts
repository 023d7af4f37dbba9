/**
 * A long server name without spaces, in Debian's Chromium at 800x600 against a real hub (audit s14,
 * window, item 4): on its Servers card and in its Tools & policies summary the name breaks inside the
 * card, and the status badge stays inside it too. It used to run on in one line, pushing the badge out
 * of the card. Screenshots under test-artifacts/screenshots/long-name-*.png.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { openSection, saveScreenshot } from '../support/browser.js';
import { BIG_SERVER } from '../support/ui-hub.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

const NAME = 'my_company_knowledge_base_search_server_'.repeat(5);

let ui: UiInChromium;

beforeAll(async () => {
  ui = await startUiInChromium();
  const ready = ui.hub.nextEvent((e) => e.type === 'upstream.status' && e.server === 'kb' && e.status === 'ready');
  expect((await ui.hub.api('upstreams.add', { id: 'kb', config: { ...BIG_SERVER, label: NAME } })).ok).toBe(true);
  await ready;
});

afterAll(async () => {
  await ui?.close();
});

/** Whether `inner` lies inside `outer`, left to right. */
async function within(inner: Locator, outer: Locator): Promise<{ right: number; limit: number }> {
  const [a, b] = [await inner.boundingBox(), await outer.boundingBox()];
  return { right: Math.round(a!.x + a!.width), limit: Math.round(b!.x + b!.width) };
}

it('keeps the name and the status badge inside the server card and the tools summary', async () => {
  const { page } = await ui.open({ width: 800, height: 600 });
  const card = page.getByRole('article', { name: NAME });
  await card.getByText('Ready', { exact: true }).waitFor();
  for (const part of [card.getByRole('heading', { name: NAME }), card.getByText('Ready', { exact: true })]) {
    const { right, limit } = await within(part, card);
    expect(right).toBeLessThanOrEqual(limit);
  }
  await saveScreenshot(page, 'long-name-servers-800');

  await openSection(page, 'Tools & policies');
  const summary = page.locator('details.server > summary', { hasText: NAME });
  await summary.getByText('Ready', { exact: true }).waitFor();
  for (const part of [summary.getByText(NAME, { exact: true }), summary.getByText('Ready', { exact: true })]) {
    const { right, limit } = await within(part, summary);
    expect(right).toBeLessThanOrEqual(limit);
  }
  await saveScreenshot(page, 'long-name-tools-800');
});

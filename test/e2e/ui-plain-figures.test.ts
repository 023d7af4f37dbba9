/**
 * Figures and registry words as a non-developer reads them, in Debian's Chromium against a real hub
 * (audit s21): a call that delivered a few hundred of 150,000-odd tokens said "100% kept out" (rounded up);
 * the catalog's list said "· pypi" and "· nothing to run" (the registry's codes).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSection, saveScreenshot } from '../support/browser.js';
import { BIG_SERVER } from '../support/ui-hub.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let ui: UiInChromium;

beforeAll(async () => {
  ui = await startUiInChromium({ withRegistry: true, settings: { spill: { previewTokens: 50 } } });
  const ready = ui.hub.nextEvent((e) => e.type === 'upstream.status' && e.server === 'files' && e.status === 'ready');
  expect((await ui.hub.api('upstreams.add', { id: 'files', config: BIG_SERVER })).ok).toBe(true);
  await ready;
});

afterAll(async () => {
  await ui?.close();
});

it('a call that delivered a little of a large result is 99% kept out, never 100%', async () => {
  const client = await ui.hub.connect();
  const big = (await client.listTools()).tools.find((t) => t.name.endsWith('big'))!;
  const done = ui.hub.nextEvent((e) => e.type === 'call.finished');
  await client.callTool({ name: big.name, arguments: { chars: 400_000 } });
  const ev = (await done) as { tokensUpstream?: number; tokensDelivered?: number };
  // The case itself: something delivered, and less than half a percent of what was produced.
  expect(ev.tokensDelivered).toBeGreaterThan(0);
  expect(ev.tokensDelivered! / ev.tokensUpstream!).toBeLessThan(0.005);

  const { page } = await ui.open({ width: 1100, height: 760 });
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await openSection(page, 'Activity');
  await page.locator('.log .row.call').last().click();
  const delivered = page.getByTestId('delivered');
  await delivered.waitFor();
  expect(await delivered.innerText()).toContain('(99% kept out)');
  await saveScreenshot(page, 'plain-figures-details');

  await openSection(page, 'Savings');
  const byTool = page.getByRole('region', { name: 'By tool' });
  await byTool.getByRole('row').nth(1).waitFor();
  expect(await byTool.innerText()).toContain('(99%)');
  expect(await byTool.innerText()).not.toContain('100%');
});

it('the catalog list says how each entry runs in words, not in the registry codes', async () => {
  const { page } = await ui.open({ width: 800, height: 600 });
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await page.getByRole('tab', { name: 'Browse' }).click();
  const list = page.getByRole('list', { name: 'Servers in the registry' });
  await list.locator('.name').first().waitFor();
  const lines = await list.locator('.name').allInnerTexts();
  const words = new Set(['npm package', 'Python package', 'Docker image', '.NET package', 'MCPB bundle', 'web address', 'no way to run it here']);
  for (const line of lines) {
    const kinds = line.split(' · ').at(-1)!.split(', ');
    for (const kind of kinds) expect(words, `${line}`).toContain(kind);
  }
  await saveScreenshot(page, 'plain-figures-browse');
});

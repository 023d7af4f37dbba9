/**
 * The Port field in real Chromium: emptying it (to type another port) and leaving it must not save
 * port 0, which moves Spillway to a random port at its next start; the field says what to enter.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSection } from '../support/browser.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let s: UiInChromium;
beforeAll(async () => {
  s = await startUiInChromium({ settings: { port: 47821 } });
});
afterAll(() => s?.close());

it('an emptied Port field is not saved: the saved port stays, and the field says what to enter', async () => {
  const { page } = await s.open();
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await openSection(page, 'Settings');
  const port = page.getByLabel('Port (0 picks a free one at every start)');
  await port.fill('');
  await port.press('Tab');
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.innerText()).toBe(
    'Enter a port from 1 to 65535, or 0 to pick a free one at every start. Nothing was saved: the port stays 47821.',
  );
  expect(await port.getAttribute('aria-invalid')).toBe('true');
  expect((await s.hub.api<{ port: number }>('settings.get')).value!.port).toBe(47821);

  // A port typed next is saved.
  await port.fill('47830');
  await port.press('Tab');
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  expect((await s.hub.api<{ port: number }>('settings.get')).value!.port).toBe(47830);
  expect(await alert.count()).toBe(0);
});

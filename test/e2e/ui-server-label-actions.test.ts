/**
 * A server with a name of its own, in Debian's Chromium against a real hub (audit s21): the card is titled
 * "My Files", and its Remove confirmation and Edit form call it that too. They used to say "Remove my-files"
 * and "Edit my-files", the id the hub made from the name, which the user never typed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { saveScreenshot } from '../support/browser.js';
import { BIG_SERVER } from '../support/ui-hub.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let ui: UiInChromium;

beforeAll(async () => {
  ui = await startUiInChromium();
  const ready = ui.hub.nextEvent((e) => e.type === 'upstream.status' && e.server === 'my-files' && e.status === 'ready');
  expect((await ui.hub.api('upstreams.add', { id: 'my-files', config: { ...BIG_SERVER, label: 'My Files' } })).ok).toBe(true);
  await ready;
});

afterAll(async () => {
  await ui?.close();
});

it('Remove and Edit call a server by the name on its card, not by its id', async () => {
  const { page } = await ui.open({ width: 800, height: 600 });
  const card = page.getByRole('article', { name: 'My Files' });
  await card.getByText('Ready', { exact: true }).waitFor();

  await card.getByRole('button', { name: 'Remove…' }).click();
  const confirm = card.getByRole('button', { name: /^Remove / });
  await confirm.waitFor();
  expect(await confirm.innerText()).toBe('Remove My Files');
  await saveScreenshot(page, 'label-actions-remove');
  await card.getByRole('button', { name: 'Keep' }).click();
  await card.getByRole('button', { name: 'Remove…' }).waitFor();

  await card.getByRole('button', { name: 'Edit' }).click();
  const title = page.locator('#server-form-title');
  await title.waitFor();
  expect(await title.innerText()).toBe('Edit My Files');
  // The form is named by its heading, so a screen reader announces the same name.
  expect(await page.getByRole('form', { name: 'Edit My Files' }).count()).toBe(1);
  await saveScreenshot(page, 'label-actions-edit');
});

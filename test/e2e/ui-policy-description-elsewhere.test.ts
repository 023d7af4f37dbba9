/**
 * A tool's description changed elsewhere (another window, the control API) while its policy editor is open,
 * in real Chromium: the box follows the saved description when the user has not edited it (it used to keep
 * the text read when the editor opened, so Save then wrote the stale text over the other change), and keeps
 * the user's unsaved typing when they have.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import type { Policies } from '../../shared/policy.js';
import { openSection } from '../support/browser.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let s: UiInChromium;
beforeAll(async () => {
  s = await startUiInChromium({ withBigServer: true });
});
afterAll(() => s?.close());

async function setElsewhere(description: string, cacheTtlSeconds?: number) {
  expect((await s.hub.api('policies.setTool', { server: 'big', tool: 'big', policy: { description, cacheTtlSeconds } })).ok).toBe(true);
}
async function savedDescription() {
  const got = await s.hub.api<{ policies: Policies }>('policies.get', {});
  return got.value?.policies.tools.big?.big?.description;
}
async function expectValue(field: Locator, value: string) {
  await expect.poll(() => field.inputValue()).toBe(value);
}

it('follows a description saved elsewhere while the box is untouched, and keeps what the user is typing', async () => {
  expect((await s.hub.api('policies.resetTool', { server: 'big', tool: 'big' })).ok).toBe(true);
  const { page } = await s.open();
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await openSection(page, 'Tools & policies');
  await page.getByRole('button', { name: 'Edit policy of big' }).click();
  const editor = page.getByRole('group', { name: 'Policy for big' });
  const box = editor.getByLabel('Description shown to clients');
  await expectValue(box, '');

  await setElsewhere('Written in another window');
  await editor.getByRole('button', { name: 'Use the original' }).waitFor();
  await expectValue(box, 'Written in another window');

  // A second change elsewhere is followed too.
  await setElsewhere('Changed again elsewhere');
  await expectValue(box, 'Changed again elsewhere');

  // Once the user edits the box, a change elsewhere does not replace their unsaved text...
  await box.fill('My own words, not saved yet');
  // (the window has the change once the cache time sent with it shows).
  await setElsewhere('A third change elsewhere', 30);
  await expectValue(editor.getByLabel('Serve repeated calls from the cache for (seconds, 0 = off)'), '30');
  expect(await box.inputValue()).toBe('My own words, not saved yet');

  // Saving it saves what the user wrote; Use the original empties the box.
  await editor.getByRole('button', { name: 'Save description' }).click();
  await expect.poll(() => savedDescription()).toBe('My own words, not saved yet');
  await editor.getByRole('button', { name: 'Use the original' }).click();
  await expect.poll(() => savedDescription()).toBeUndefined();
  await expectValue(box, '');
});

/**
 * "Reset <tool> to default" in real Chromium: the button goes disabled while it saves, which in a browser
 * drops the keyboard focus to the page; the Undo notice takes it, and Undo puts the hand-written
 * description and hidden parameter values back in the hub's config.
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

const WRITTEN = { description: 'A carefully written description for the model, several sentences long.', hiddenParams: { chars: 10 } };

/** Whether the keyboard focus is on `target`. */
const hasFocus = (target: Locator) => target.evaluate((el) => el === el.ownerDocument.activeElement);

async function toolPolicy() {
  const got = await s.hub.api<{ policies: Policies }>('policies.get', {});
  return got.value?.policies.tools.big?.big;
}

it('Reset by keyboard: the Undo notice has the focus, and Undo restores what was written', async () => {
  const { page } = await s.open();
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  // The hidden parameter is checked against the tool's schema: the server must be up first.
  const ready = s.hub.nextEvent((e) => e.type === 'upstream.status' && e.server === 'big' && e.status === 'ready');
  if (s.hub.app.hub.pool.get('big')?.status !== 'ready') await ready;
  expect((await s.hub.api('policies.setTool', { server: 'big', tool: 'big', policy: WRITTEN })).ok).toBe(true);
  await openSection(page, 'Tools & policies');
  await page.getByRole('button', { name: 'Edit policy of big' }).click();
  const editor = page.getByRole('group', { name: 'Policy for big' });
  await expectValue(editor.getByLabel('Description shown to clients'), WRITTEN.description);

  const reset = editor.getByRole('button', { name: 'Reset big to default' });
  await reset.focus();
  await page.keyboard.press('Enter');
  const note = editor.getByRole('status').filter({ hasText: 'what was set for it here is removed' });
  await note.waitFor();
  await expect.poll(() => toolPolicy()).toBeUndefined();
  expect(await hasFocus(note)).toBe(true);

  // Tab reaches Undo from the notice; Enter undoes.
  await page.keyboard.press('Tab');
  expect(await hasFocus(note.getByRole('button', { name: 'Undo' }))).toBe(true);
  await page.keyboard.press('Enter');
  await expect.poll(() => toolPolicy()).toEqual(WRITTEN);
  await note.waitFor({ state: 'detached' });
  await expectValue(editor.getByLabel('Description shown to clients'), WRITTEN.description);
  await expectValue(editor.getByLabel('Value of chars'), '10');
  await expect.poll(() => hasFocus(reset)).toBe(true);
});

async function expectValue(field: Locator, value: string) {
  await expect.poll(() => field.inputValue()).toBe(value);
}

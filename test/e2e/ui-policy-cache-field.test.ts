/**
 * The cache time field of a tool's policy in real Chromium: emptying it (to type another value) and leaving
 * it used to save `cacheTtlSeconds: 0`, which silently turned the tool's cache off (Number('') is 0). Now
 * an empty or non-whole value is not saved, and the field says what to enter and that nothing was saved;
 * the preview's exact field says so too when left empty (it saved nothing, silently).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Policies } from '../../shared/policy.js';
import { openSection } from '../support/browser.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let s: UiInChromium;
beforeAll(async () => {
  s = await startUiInChromium({ withBigServer: true });
});
afterAll(() => s?.close());

const LABEL = 'Serve repeated calls from the cache for (seconds, 0 = off)';

async function toolPolicy() {
  const got = await s.hub.api<{ policies: Policies }>('policies.get', {});
  return got.value?.policies.tools.big?.big;
}
const cacheSeconds = async () => (await toolPolicy())?.cacheTtlSeconds;

it('an emptied or non-whole cache time is not saved, and the field says so; a whole number then saves', async () => {
  expect((await s.hub.api('policies.setTool', { server: 'big', tool: 'big', policy: { cacheTtlSeconds: 600 } })).ok).toBe(true);
  const { page } = await s.open();
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await openSection(page, 'Tools & policies');
  await page.getByRole('button', { name: 'Edit policy of big' }).click();
  const editor = page.getByRole('group', { name: 'Policy for big' });
  const field = editor.getByLabel(LABEL);
  await editor.getByText('In force: 600 seconds').waitFor();

  for (const typed of ['', '2.5']) {
    await field.fill(typed);
    await field.press('Tab');
    const note = editor.getByRole('alert').filter({ hasText: 'Nothing was saved' });
    await note.waitFor();
    expect(await note.innerText()).toContain('Enter seconds (0 turns the cache off). Nothing was saved: it stays 600 seconds.');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await cacheSeconds()).toBe(600);
    await editor.getByText('In force: 600 seconds').waitFor();
  }

  // A whole number clears the note and saves.
  await field.fill('120');
  await field.press('Tab');
  await expect.poll(() => cacheSeconds()).toBe(120);
  await editor.getByText('In force: 120 seconds').waitFor();
  await editor.getByRole('alert').filter({ hasText: 'Nothing was saved' }).waitFor({ state: 'detached' });
  expect(await field.getAttribute('aria-invalid')).toBe('false');

  // 0 is a value (the cache off), not an empty field.
  await field.fill('0');
  await field.press('Tab');
  await expect.poll(() => cacheSeconds()).toBe(0);
  await editor.getByText('In force: off').waitFor();

  // The preview's exact field, emptied and left, saves nothing either, and says so.
  const preview = editor.getByLabel('Preview for big, exact tokens');
  await preview.fill('');
  await preview.press('Tab');
  const note = editor.getByRole('alert').filter({ hasText: 'Enter a number of tokens. Nothing was saved.' });
  await note.waitFor();
  expect(await preview.getAttribute('aria-invalid')).toBe('true');
  expect(await toolPolicy()).toEqual({ cacheTtlSeconds: 0 });
  await preview.fill('2000');
  await preview.press('Tab');
  await expect.poll(async () => (await toolPolicy())?.previewTokens).toBe(2000);
  await note.waitFor({ state: 'detached' });
});

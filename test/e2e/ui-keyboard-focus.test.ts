/**
 * Where the keyboard focus goes when the button it was on goes away, in Debian's Chromium against a real
 * hub: a dialog whose confirm is disabled (Import with every server imported already) still takes the
 * focus, keeps Tab inside and closes on Escape; Remove…/Keep and the removal itself, and Clear spilled
 * results, hand the focus to what is shown instead, never to the page body. The Add server form opens
 * with the focus in Name and gives it back to Add server; Undo puts it on the card put back; a call's
 * details give it back to their log row (audit s14, window, items 2 and 3).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { openSection, type OpenedPage } from '../support/browser.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let ui: UiInChromium;
let opened: OpenedPage;

/** The focused element as "TAG text", and whether it is inside the open dialog. */
const focused = (page: Page) =>
  page.locator('body').evaluate((body) => {
    const el = body.ownerDocument.activeElement;
    return { what: `${el?.tagName} ${(el?.textContent ?? '').trim().slice(0, 40)}`, inDialog: el?.closest('[role="dialog"]') !== null };
  });
const hasFocus = (target: Locator) => target.evaluate((el) => el === el.ownerDocument.activeElement);

beforeAll(async () => {
  ui = await startUiInChromium({ withBigServer: true });
  // Claude Desktop's only server is imported already: its Import dialog has nothing to pick.
  const imported = await ui.hub.api('clients.import', { id: 'claude-desktop', names: ['everything'], replace: false });
  expect(imported.ok).toBe(true);
  opened = await ui.open();
  await opened.page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
});

afterAll(async () => {
  await ui?.close();
});

describe('keyboard focus', () => {
  it('keeps a dialog with a disabled confirm modal: focus inside, Tab stays inside, Escape closes', async () => {
    const page = opened.page;
    await openSection(page, 'Clients');
    const opener = page.locator('li.client', { hasText: 'Claude Desktop' }).getByRole('button', { name: 'Import servers' });
    await opener.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Import servers from Claude Desktop' });
    await dialog.waitFor();
    expect(await dialog.getByRole('button', { name: 'Import 0' }).isDisabled()).toBe(true);
    expect((await focused(page)).inDialog).toBe(true);
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press(i % 2 ? 'Shift+Tab' : 'Tab');
      expect((await focused(page)).inDialog).toBe(true);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await hasFocus(opener)).toBe(true);
  });

  it('moves the focus to the button shown when Remove… and Keep swap, then to the Undo notice', async () => {
    const page = opened.page;
    await openSection(page, 'Servers');
    const card = page.getByRole('article', { name: 'everything' });
    await card.getByRole('button', { name: 'Remove…' }).focus();
    await page.keyboard.press('Enter');
    expect((await focused(page)).what).toBe('BUTTON Remove everything');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect((await focused(page)).what).toBe('BUTTON Remove…');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached' });
    await expect.poll(() => hasFocus(page.locator('#servers-removed'))).toBe(true);
    expect((await focused(page)).what).toMatch(/^DIV Removed everything\./);
  });

  it('gives the focus to what Clear spilled results deleted, not to the page body', async () => {
    const page = opened.page;
    const client = await ui.hub.connect('spiller');
    await client.callTool({ name: 'big__big', arguments: { chars: 60_000 } });
    await client.close();
    await openSection(page, 'Settings');
    const clear = page.getByRole('button', { name: 'Clear spilled results' });
    await page.locator('#settings-usage', { hasText: '(1 result)' }).waitFor();
    await clear.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Clear spilled results?' }).waitFor();
    expect((await focused(page)).what).toBe('BUTTON Delete 1 result');
    await page.keyboard.press('Enter');
    const note = page.getByText('Deleted 1 spilled result', { exact: true });
    await note.waitFor();
    await expect.poll(() => hasFocus(note)).toBe(true);
    expect(await clear.isDisabled()).toBe(true);
    expect(opened.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  });

  it('opens Add server with the focus on Name; Escape and Cancel close it and give the focus back to Add server', async () => {
    const page = opened.page;
    await openSection(page, 'Servers');
    const add = page.getByRole('button', { name: 'Add server' });
    await add.focus();
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'Add a server' });
    await expect.poll(() => hasFocus(form.getByRole('textbox', { name: 'Name', exact: true }))).toBe(true);
    await page.keyboard.type('notes');
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'detached' });
    await expect.poll(() => hasFocus(add)).toBe(true);

    await page.keyboard.press('Enter');
    await form.getByRole('button', { name: 'Cancel' }).focus();
    await page.keyboard.press('Enter');
    await form.waitFor({ state: 'detached' });
    await expect.poll(() => hasFocus(add)).toBe(true);
  });

  it('puts the focus on the card that Undo put back', async () => {
    const page = opened.page;
    const card = page.getByRole('article', { name: 'big' });
    await card.getByRole('button', { name: 'Remove…' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached' });
    // The notice may still name the server removed before (everything) for a moment.
    const notice = page.locator('#servers-removed', { hasText: 'Removed big.' });
    await notice.waitFor();
    await notice.getByRole('button', { name: 'Undo' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => hasFocus(card.getByRole('heading', { name: 'big' }))).toBe(true);
  });

  it('gives the focus back to the log row when a call’s details close, by Close or by Escape', async () => {
    const page = opened.page;
    await openSection(page, 'Servers');
    // Ready again after the Undo above, with its tool listed.
    await page.getByRole('article', { name: 'big' }).getByText('Ready', { exact: true }).waitFor({ timeout: 20_000 });
    const client = await ui.hub.connect('spiller');
    await client.callTool({ name: 'big__big', arguments: { chars: 60_000 } });
    await client.close();
    await openSection(page, 'Activity');
    const row = page
      .getByRole('region', { name: 'Live log' })
      .getByRole('button', { name: /big__big spilled/ })
      .last();
    const close = page.getByRole('button', { name: 'Close call details' });
    for (const how of ['Close', 'Escape']) {
      await row.focus();
      await page.keyboard.press('Enter');
      await close.focus();
      await page.keyboard.press(how === 'Close' ? 'Enter' : 'Escape');
      await close.waitFor({ state: 'detached' });
      await expect.poll(() => hasFocus(row), { message: `after ${how}` }).toBe(true);
    }
  });
});

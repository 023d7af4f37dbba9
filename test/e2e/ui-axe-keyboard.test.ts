/**
 * The keyboard alone (issue 14): first-run setup and the policy editor completed in Debian's Chromium
 * with Tab, Shift+Tab, Enter, Space and the arrow keys — no click — against a real hub on a fresh HOME
 * whose Claude Desktop config holds server-everything. Fails when a control cannot be reached by Tab.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../support/browser.js';
import { tabTo } from '../support/keyboard.js';
import { startUiHub, type UiHub } from '../support/ui-hub.js';

let ui: UiHub;
let browser: Browser;

beforeAll(async () => {
  ui = await startUiHub();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await ui?.close();
});

describe('keyboard only', () => {
  it('completes setup, then lowers a tool’s threshold in the policy editor', async () => {
    const { page, errors, context } = await openPage(browser, ui.url, { width: 800, height: 600 });
    const welcome = page.getByRole('region', { name: 'Set up Spillway' });
    await welcome.waitFor();

    await tabTo(page, welcome.getByRole('button', { name: 'Review changes' }));
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('region', { name: 'Check the changes' });
    const ready = ui.nextEvent((e) => e.type === 'upstream.status' && e.server === 'everything' && e.status === 'ready');
    await tabTo(page, confirm.getByRole('button', { name: 'Connect and import' }));
    await page.keyboard.press('Space');
    const done = page.getByRole('region', { name: 'Setup finished' });
    await tabTo(page, done.getByRole('button', { name: 'Open Activity' }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
    await ready;

    // Back to the section list (before the view in the page), then down with the arrows.
    const nav = page.getByRole('navigation', { name: 'Sections' });
    await tabTo(page, nav.getByRole('button', { name: /^Activity/ }), { backward: true });
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await nav.getByRole('button', { name: /^Tools & policies/ }).evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Tools & policies' }).waitFor();

    await tabTo(page, page.getByRole('button', { name: 'Edit policy of echo' }));
    await page.keyboard.press('Enter');
    const editor = page.getByRole('group', { name: 'Policy for echo' });
    const threshold = editor.getByLabel('Threshold for echo', { exact: true });
    await tabTo(page, threshold);
    await editor.getByText(/In force: 10,000 tokens/).waitFor();
    // One step down on the slider saves when the key is let go, as a drag does when released.
    await page.keyboard.press('ArrowLeft');
    await editor.getByText(/In force: 5,000 tokens/).waitFor();
    const policies = await ui.api<{ tools?: Record<string, { thresholdTokens?: number }> }>('policies.get');
    expect(JSON.stringify(policies.value)).toContain('"thresholdTokens":5000');

    await tabTo(page, page.getByRole('button', { name: 'Close policy of echo' }), { backward: true });
    await page.keyboard.press('Enter');
    await editor.waitFor({ state: 'detached' });
    expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
    await context.close();
  });
});

/**
 * Screenshots of every view (issue 14, Verify), light and dark, at 800x600 and 1280x800, saved under
 * test-artifacts/screenshots/look-<view>-<scheme>-<size>.png for a person to look at: setup, Servers,
 * Browse, Tools & policies with the policy editor open, Activity with a spilled call's details and its
 * original, Savings, Clients, Settings. Also checks what a look can miss: no view is wider than the window
 * (nothing cut off to the right at 800x600) and the page itself never scrolls (only the content does).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openSection, saveScreenshot } from '../support/browser.js';
import { spillOneCall } from '../support/ui-hub.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

const VARIANTS = [
  { colorScheme: 'light', width: 1280, height: 800 },
  { colorScheme: 'dark', width: 1280, height: 800 },
  { colorScheme: 'light', width: 800, height: 600 },
  { colorScheme: 'dark', width: 800, height: 600 },
] as const;

let session: UiInChromium;

beforeAll(async () => {
  session = await startUiInChromium({ withRegistry: true });
});

afterAll(() => session?.close());

/** Widths that overflow the window: the document, or any element of the content wider than its box. */
async function overflow(page: Page): Promise<string[]> {
  return page.locator('html').evaluate((doc) => {
    const found: string[] = [];
    const win = doc.ownerDocument.defaultView;
    if (!win) return found;
    if (doc.scrollWidth > win.innerWidth + 1) found.push(`page ${doc.scrollWidth}px wide`);
    if (doc.scrollHeight > win.innerHeight + 1) found.push(`page ${doc.scrollHeight}px tall`);
    const main = doc.querySelector('main');
    if (main && main.scrollWidth > main.clientWidth + 1) found.push(`content ${main.scrollWidth}px in ${main.clientWidth}px`);
    return found;
  });
}

describe('screenshots of every view', () => {
  it('saves setup, then every view, light and dark, at 1280x800 and 800x600', async () => {
    const problems: string[] = [];
    const shoot = async (page: Page, view: string, variant: (typeof VARIANTS)[number]) => {
      const name = `look-${view}-${variant.colorScheme}-${variant.width}x${variant.height}`;
      await saveScreenshot(page, name);
      problems.push(...(await overflow(page)).map((p) => `${name}: ${p}`));
    };

    for (const variant of VARIANTS) {
      const opened = await session.open(variant);
      await opened.page.getByRole('region', { name: 'Set up Spillway' }).getByRole('button', { name: 'Review changes' }).waitFor();
      await shoot(opened.page, 'onboarding', variant);
      await opened.context.close();
    }

    const client = await spillOneCall(session.hub);
    await client.callTool({ name: (await client.listTools()).tools.find((t) => t.name.endsWith('ping'))!.name, arguments: {} });

    for (const variant of VARIANTS) {
      const { page, context, errors } = await session.open(variant);
      await page.getByRole('article', { name: 'big' }).getByText('Ready', { exact: true }).waitFor({ timeout: 30_000 });
      await shoot(page, 'servers', variant);
      await page.getByRole('button', { name: 'Add server' }).first().click();
      await page.getByRole('form', { name: 'Add a server' }).waitFor();
      await shoot(page, 'server-form', variant);
      await page.getByRole('form', { name: 'Add a server' }).getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('tab', { name: 'Browse' }).click();
      await page.getByRole('list', { name: 'Servers in the registry' }).getByRole('listitem').first().waitFor();
      await shoot(page, 'browse', variant);

      await openSection(page, 'Tools & policies');
      await page.getByRole('table', { name: 'Tools of big' }).waitFor();
      await shoot(page, 'tools', variant);
      await page.getByRole('button', { name: 'Edit policy of big' }).click();
      await page
        .getByRole('group', { name: 'Policy for big' })
        .getByText(/In force:/)
        .first()
        .waitFor();
      await shoot(page, 'tools-policy-editor', variant);

      await openSection(page, 'Activity');
      const row = page
        .getByRole('region', { name: 'Live log' })
        .getByRole('button', { name: /big spilled/ })
        .first();
      await row.waitFor();
      await shoot(page, 'activity', variant);
      await row.click();
      await page.getByRole('region', { name: 'Spilled original' }).waitFor();
      await shoot(page, 'activity-details', variant);

      await openSection(page, 'Savings');
      await page.getByRole('region', { name: 'All time' }).waitFor();
      await shoot(page, 'savings', variant);
      await openSection(page, 'Clients');
      await page.getByRole('listitem', { name: 'Claude Desktop' }).waitFor();
      await shoot(page, 'clients', variant);
      await openSection(page, 'Settings');
      await shoot(page, 'settings', variant);
      expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
      await context.close();
    }
    expect(problems).toEqual([]);
  });
});

/**
 * Accessibility checked, not assumed (issue 14): axe-core in Debian's Chromium on every view and dialog
 * of the built UI against a real hub on a fresh HOME — setup, Servers with its form and Browse, Tools &
 * policies with the policy editor, Activity with a spilled call's details and its original viewer,
 * Savings, Clients with the connect dialog, Settings with its confirm dialog — in light and dark. Prints
 * a compact summary and fails on any serious or critical violation. Waits on locators, never on sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openSection } from '../support/browser.js';
import { blocking, formatAxeSummary, runAxe, type AxeReport } from '../support/axe.js';
import { spillOneCall } from '../support/ui-hub.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let session: UiInChromium;

beforeAll(async () => {
  session = await startUiInChromium({ withRegistry: true });
});

afterAll(() => session?.close());

/** First-run setup: shows only while no server is configured. */
async function checkSetup(page: Page, scheme: string): Promise<AxeReport[]> {
  await page.getByRole('region', { name: 'Set up Spillway' }).waitFor();
  const first = await runAxe(page, `onboarding (${scheme})`);
  await page.getByRole('region', { name: 'Set up Spillway' }).getByRole('button', { name: 'Review changes' }).click();
  await page.getByRole('region', { name: 'Check the changes' }).waitFor();
  return [first, await runAxe(page, `onboarding confirm (${scheme})`)];
}

/** Visits every view and dialog, running axe on each; returns the reports. */
async function checkEverything(page: Page, scheme: string): Promise<AxeReport[]> {
  const reports: AxeReport[] = [];
  const check = async (name: string) => reports.push(await runAxe(page, `${name} (${scheme})`));

  await page.getByRole('article', { name: 'big' }).getByText('Ready', { exact: true }).waitFor({ timeout: 30_000 });
  await check('servers');
  // Status never by colour alone: an icon beside the word, hidden from screen readers (they read the word).
  const shape = page.getByRole('article', { name: 'big' }).locator('.badge svg[aria-hidden="true"]');
  expect(await shape.getAttribute('class')).toContain('lucide-check');

  await page.getByRole('button', { name: 'Add server' }).first().click();
  await page.getByRole('form', { name: 'Add a server' }).waitFor();
  await check('server form');
  await page.getByRole('form', { name: 'Add a server' }).getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('tab', { name: 'Browse' }).click();
  await page.getByRole('list', { name: 'Servers in the registry' }).getByRole('listitem').first().waitFor();
  await check('browse');
  await page.getByRole('tab', { name: 'Installed' }).click();

  await openSection(page, 'Tools & policies');
  await page.getByRole('table', { name: 'Tools of big' }).waitFor();
  await check('tools & policies');
  await page.getByRole('button', { name: 'Edit policy of big' }).click();
  await page.getByRole('group', { name: 'Policy for big' }).waitFor();
  await check('policy editor');
  await page.getByRole('button', { name: 'Close policy of big' }).click();

  await openSection(page, 'Activity');
  await page
    .getByRole('region', { name: 'Live log' })
    .getByRole('button', { name: /big spilled/ })
    .first()
    .waitFor();
  await check('activity');
  await page
    .getByRole('region', { name: 'Live log' })
    .getByRole('button', { name: /big spilled/ })
    .first()
    .click();
  await page.getByRole('region', { name: 'Spilled original' }).waitFor();
  await check('call details + original viewer');

  await openSection(page, 'Savings');
  await page.getByRole('region', { name: 'All time' }).waitFor();
  await check('savings');

  await openSection(page, 'Clients');
  const claude = page.getByRole('listitem', { name: 'Claude Desktop' });
  await claude.waitFor();
  await check('clients');
  await claude.getByRole('button', { name: 'Connect' }).click();
  const connect = page.getByRole('dialog', { name: /Connect Claude Desktop/ });
  await connect.waitFor();
  await check('confirm dialog (connect)');
  await connect.getByRole('button', { name: 'Cancel' }).click();

  await openSection(page, 'Settings');
  await check('settings');
  await page.getByRole('button', { name: 'Clear spilled results' }).click();
  await page.getByRole('dialog').waitFor();
  await check('confirm dialog (clear)');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  return reports;
}

describe('axe-core on every view and dialog', () => {
  it('finds no serious or critical violation, light and dark', async () => {
    const reports: AxeReport[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      const opened = await session.open({ colorScheme });
      reports.push(...(await checkSetup(opened.page, colorScheme)));
      await opened.context.close();
    }

    // Then a server and a spilled call, so Activity, its details, the viewer and Savings have something to show.
    await spillOneCall(session.hub);

    for (const colorScheme of ['light', 'dark'] as const) {
      const opened = await session.open({ colorScheme });
      reports.push(...(await checkEverything(opened.page, colorScheme)));
      expect(opened.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
      await opened.context.close();
    }
    console.log(formatAxeSummary(reports));
    expect(reports.flatMap((r) => blocking(r).map((v) => `${r.name}: ${v.impact} ${v.id} (${v.targets.join(' | ')})`))).toEqual([]);
  });
});

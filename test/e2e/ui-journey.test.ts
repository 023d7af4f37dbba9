/**
 * The whole journey in Debian's Chromium (issue 14, Verify), from a fresh HOME whose Claude Desktop config
 * holds the big-result fixture server: setup imports it → an SDK client's call through the hub is
 * spilled → Activity shows its details → the original viewer pages (page 2) and searches → Savings
 * updates live on the next call → the hub stops and the window says so within 2 s → the hub starts
 * again on the same port and data folder and the window recovers by itself, without a reload.
 * Waits on locators and hub events, never on sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { launchChromium, openPage, openSection, saveScreenshot } from '../support/browser.js';
import { startUiHub, type UiHub } from '../support/ui-hub.js';

let ui: UiHub;
let browser: Browser;

beforeAll(async () => {
  ui = await startUiHub({ claudeServers: { big: { command: NODE, args: [fixture('big-result-server.mjs')] } } });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await ui?.close();
});

async function bigCall(client: Client, chars: number) {
  const big = (await client.listTools()).tools.find((t) => t.name.endsWith('big'));
  expect(big).toBeTruthy();
  const result = await client.callTool({ name: big!.name, arguments: { chars } });
  const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
  expect(text.length).toBeLessThan(chars);
}

describe('the journey from a fresh HOME', () => {
  it('setup → spilled call → details → original (page 2, search) → live Savings → hub stops → banner → recovers', async () => {
    const { page, errors, context } = await openPage(browser, ui.url, { width: 1280, height: 800 });

    // Setup: the server from Claude Desktop moves into Spillway.
    const ready = ui.nextEvent((e) => e.type === 'upstream.status' && e.server === 'big' && e.status === 'ready');
    await page.getByRole('region', { name: 'Set up Spillway' }).getByRole('button', { name: 'Review changes' }).click();
    await page.getByRole('region', { name: 'Check the changes' }).getByRole('button', { name: 'Connect and import' }).click();
    const done = page.getByRole('region', { name: 'Setup finished' });
    await done.getByText('Now running in Spillway: big.').waitFor({ timeout: 30_000 });
    await done.getByRole('button', { name: 'Open Activity' }).click();
    await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
    await ready;

    // A spilled call, live in Activity.
    const client = await ui.connect('journey-client');
    await bigCall(client, 60_000);
    const row = page.getByRole('region', { name: 'Live log' }).getByRole('button', { name: /big spilled/ });
    await row.click();
    const details = page.getByRole('region', { name: /big$/ }).filter({ has: page.getByRole('region', { name: 'Spilled original' }) });
    const original = details.getByRole('region', { name: 'Spilled original' });
    await original
      .getByText(/line of log output/)
      .first()
      .waitFor();
    await details.getByText(/^Lines 1–100 of /).waitFor();

    // Page 2, then a search whose match jumps to its page.
    await details.getByRole('button', { name: 'Next' }).click();
    await details.getByText(/^Lines 101–200 of /).waitFor();
    await details.getByRole('searchbox', { name: 'Search pattern' }).fill('日本語');
    await details.getByRole('button', { name: 'Search' }).click();
    const matches = details.getByRole('list', { name: 'Search results' });
    await matches.getByRole('button').first().waitFor();
    await saveScreenshot(page, 'journey-original-search');

    // Savings, open while the next call comes in, updates by itself.
    await openSection(page, 'Savings');
    const allTime = page.getByRole('region', { name: 'All time' });
    await allTime.filter({ hasText: /·\s+1\s+call\b/ }).waitFor();
    await bigCall(client, 40_000);
    await allTime.filter({ hasText: /·\s+2\s+calls\b/ }).waitFor();

    // The hub stops: the window says so within 2 s.
    const banner = page.getByRole('alert').filter({ hasText: 'Spillway is not running' });
    const stopping = ui.stop();
    const stoppedAt = Date.now();
    await banner.waitFor({ timeout: 2_000 });
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);
    await stopping;
    await saveScreenshot(page, 'journey-hub-stopped');

    // Started again on the same port and data folder: the window recovers by itself, no reload.
    await ui.start();
    await banner.waitFor({ state: 'detached', timeout: 20_000 });
    await page.getByRole('contentinfo', { name: 'Status' }).getByText('Active').waitFor();
    await allTime.filter({ hasText: /·\s+2\s+calls\b/ }).waitFor();
    await openSection(page, 'Servers');
    // Imported servers start on first use: the card is back (not greyed), and a call through the new hub shows live.
    await page.getByRole('article', { name: 'big' }).waitFor();
    expect(await page.locator('.shell.offline').count()).toBe(0);
    await bigCall(await ui.connect('journey-client-2'), 30_000);
    await page.getByRole('article', { name: 'big' }).getByText('Ready', { exact: true }).waitFor({ timeout: 30_000 });
    await saveScreenshot(page, 'journey-hub-back');
    expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
    await context.close();
  });
});

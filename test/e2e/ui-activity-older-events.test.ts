/**
 * Activity in Debian's Chromium against a real hub holding more events than the window loads: a filter
 * finds nothing among the latest events, "Load older events" searches the hub's event files and shows the
 * old match, then says every older event was searched. Uses the built renderer (SPILLWAY_UI_DIR, else
 * dist/renderer as the other UI tests).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, openSection } from '../support/browser.js';
import { ROOT, startTestHub, type TestHub } from '../support/hub-harness.js';

const UI_DIR = process.env.SPILLWAY_UI_DIR ?? join(ROOT, 'dist', 'renderer');

let hub: TestHub;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(join(UI_DIR, 'index.html'))) throw new Error(`${UI_DIR} is missing: build the renderer first (npm test builds it).`);
  hub = await startTestHub({ version: 1, servers: {} }, { uiDir: UI_DIR });
  hub.hub.events.emit({ type: 'log', level: 'warn', server: 'files', message: 'the disk is nearly full' });
  // More than the 1,000 events the window loads when it opens.
  for (let i = 0; i < 1500; i++) hub.hub.events.emit({ type: 'log', level: 'info', server: 'web', message: `fetched page ${i}` });
  await hub.hub.events.flush();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await hub?.stop();
});

it('finds an event older than the window holds when a filter asks for it', async () => {
  const { page, errors } = await openPage(browser, `${hub.hub.endpoint.origin}/?token=${hub.hub.token}`);
  await openSection(page, 'Activity');
  await page.getByRole('searchbox').fill('nearly full');
  await page.getByText('No events match these filters.').waitFor();
  await page.getByRole('button', { name: 'Load older events' }).click();
  const log = page.getByRole('region', { name: 'Live log' });
  await log.getByRole('button', { name: /the disk is nearly full/ }).waitFor();
  await page.getByText(/All older events searched: 1 older match/).waitFor();
  expect(await log.locator('.row').count()).toBe(1);
  expect(errors).toEqual([]);
});

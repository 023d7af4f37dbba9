/**
 * A sign-in the provider denies, in Chromium against a real hub serving the built UI (audit s13, oauth 4):
 * the browser comes back to /oauth/callback with error=access_denied. The card stops waiting (its "Open
 * the sign-in page again" link would lead to a used-up sign-in), says in plain words what happened, and
 * offers Sign in, which then signs in. Waits on locators.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';
import { launchChromium, openPage } from '../support/browser.js';
import { requireBuiltUi, UI_DIR } from '../support/ui-hub.js';
import { spawnUntil, type Started } from '../support/processes.js';

let oauth: Started;
let hub: TestHub;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const mcpUrl = () => oauth.match[1]!;

beforeAll(async () => {
  requireBuiltUi();
  oauth = await spawnUntil(NODE, [fixture('oauth-server.mjs'), '--token-lifetime', '60'], /^(http:\/\/127\.0\.0\.1:\d+\/mcp)$/m);
  hub = await startTestHub({ version: 1, servers: { remote: { type: 'http', url: mcpUrl(), headers: {} } } }, { uiDir: UI_DIR });
  browser = await launchChromium();
  ({ context, page } = await openPage(browser, `${hub.hub.endpoint.origin}/?token=${hub.token}`));
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await hub?.stop();
  await oauth?.stop();
});

it('after the provider denies access, the card says so and Sign in works again', async () => {
  const card = page.getByRole('article', { name: 'remote' });
  await card.getByRole('button', { name: 'Sign in' }).waitFor();
  // The provider's consent page, where the user presses "Deny": it redirects back with error=access_denied.
  await context.route(/\/authorize\?/, async (route) => {
    const asked = new URL(route.request().url());
    const back = new URL(asked.searchParams.get('redirect_uri')!);
    back.searchParams.set('error', 'access_denied');
    back.searchParams.set('state', asked.searchParams.get('state')!);
    await route.fulfill({ status: 302, headers: { location: back.href } });
  });
  const popup = context.waitForEvent('page');
  await card.getByRole('button', { name: 'Sign in' }).click();
  await card.getByText('Waiting for you to finish signing in in your browser…').waitFor();
  const tab = await popup;
  await tab.getByRole('heading', { name: 'Access denied' }).waitFor();
  await tab.close();
  await context.unroute(/\/authorize\?/);

  await card
    .getByText('The last sign-in did not finish. Access was denied in the browser. To use this server, press Sign in and allow access.')
    .waitFor();
  expect(await card.getByText(/Waiting for you/).count()).toBe(0);
  expect(await card.getByRole('link', { name: 'Open the sign-in page again' }).count()).toBe(0);

  // Sign in again: this time the fixture approves at once, and the card turns Signed in.
  const again = context.waitForEvent('page');
  await card.getByRole('button', { name: 'Sign in' }).click();
  await (await again).getByRole('heading', { name: 'Signed in' }).waitFor();
  await card.getByText(`Signed in to ${new URL(mcpUrl()).host}`).waitFor();
  expect(await card.getByText(/did not finish/).count()).toBe(0);
});

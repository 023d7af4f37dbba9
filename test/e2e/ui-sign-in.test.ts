/**
 * Sign-in from the Servers view (issue 15), in Chromium against a real hub serving the built UI, with the
 * OAuth-protected fixture server (the SDK's server-side auth) added as a web server through the form: the
 * card says it needs a sign-in and offers Sign in; pressing it opens the authorization page in a new tab,
 * which the fixture approves and redirects to the hub's /oauth/callback; the card turns Ready and Signed
 * in without a reload; Sign out (after its warning) brings Needs sign-in back. The tokens the fixture
 * issued are never in the page's DOM nor in any control answer the page received. Waits on locators.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';
import { launchChromium, openPage, saveScreenshot } from '../support/browser.js';
import { requireBuiltUi, UI_DIR } from '../support/ui-hub.js';
import { spawnUntil, type Started } from '../support/processes.js';
import { blocking, runAxe } from '../support/axe.js';

let oauth: Started;
let hub: TestHub;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every control answer the page received (POST /api/<method>), as text once read. */
const answers: Promise<string>[] = [];

const mcpUrl = () => oauth.match[1];
const issued = async () => ((await (await fetch(new URL('/stats', mcpUrl()))).json()) as { issued: string[] }).issued;

beforeAll(async () => {
  requireBuiltUi();
  // Tokens live a minute: the test is about the window, not refreshing (the integration test covers that).
  oauth = await spawnUntil(NODE, [fixture('oauth-server.mjs'), '--token-lifetime', '60'], /^(http:\/\/127\.0\.0\.1:\d+\/mcp)$/m);
  hub = await startTestHub({ version: 1, servers: {} }, { uiDir: UI_DIR });
  browser = await launchChromium();
  ({ context, page } = await openPage(browser, `${hub.hub.endpoint.origin}/?token=${hub.token}`));
  page.on('response', (response) => {
    if (response.request().method() !== 'POST' || !new URL(response.url()).pathname.startsWith('/api/')) return;
    answers.push(response.text().catch(() => ''));
  });
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await hub?.stop();
  await oauth?.stop();
});

const card = () => page.getByRole('article', { name: 'Remote notes' });

describe('signing in to a web server from the Servers view, in Chromium', () => {
  it('shows Needs sign-in and the button for a server that answers 401', async () => {
    await page.getByRole('button', { name: 'Add server' }).click();
    const form = page.getByRole('form', { name: 'Add a server' });
    await form.getByLabel('Name', { exact: true }).fill('Remote notes');
    await form.getByLabel('Web address (URL)').check();
    await form.getByLabel('URL', { exact: true }).fill(mcpUrl());
    await form.getByRole('button', { name: 'Add server' }).click();
    await form.waitFor({ state: 'detached' });
    await card().getByText('Needs sign-in', { exact: true }).waitFor();
    await card()
      .getByText(`Remote notes needs you to sign in to ${new URL(mcpUrl()).host}.`)
      .waitFor();
    expect(await card().getByRole('button', { name: 'Sign in' }).isEnabled()).toBe(true);
    expect(
      await card()
        .getByText(/Last error/)
        .count(),
    ).toBe(0); // the sentence says it all
    await saveScreenshot(page, 'sign-in-needed');
    expect(blocking(await runAxe(page, 'sign-in needed'))).toEqual([]);
  });

  it('Sign in opens the authorization page; once the fixture redirects back, the card is Ready and Signed in without a reload', async () => {
    // A mark on the window: still there afterwards means the page was never reloaded.
    await page.evaluate(() => Object.assign(globalThis, { signInTestMark: true }));
    const popup = context.waitForEvent('page');
    await card().getByRole('button', { name: 'Sign in' }).click();
    await card().getByText('Waiting for you to finish signing in in your browser…').waitFor();
    // The new tab is the browser following the authorization URL: the fixture approves and redirects to the hub.
    const tab = await popup;
    await tab.waitForURL(/\/oauth\/callback\?/);
    await tab.getByRole('heading', { name: 'Signed in' }).waitFor();
    expect(new URL(tab.url()).origin).toBe(hub.hub.endpoint.origin);
    await tab.close();

    await card().getByText('Ready', { exact: true }).waitFor();
    await card()
      .getByText(`Signed in to ${new URL(mcpUrl()).host}`)
      .waitFor();
    expect(
      await card()
        .getByText(/Waiting for you/)
        .count(),
    ).toBe(0);
    await card().getByText('2 tools', { exact: true }).waitFor(); // whoami and admin_report
    expect(await page.evaluate(() => 'signInTestMark' in globalThis)).toBe(true);
    await saveScreenshot(page, 'sign-in-done');
  });

  it('no token the fixture issued is in the DOM or in any control answer the page received', async () => {
    const secrets = await issued();
    expect(secrets.length).toBeGreaterThanOrEqual(2); // an access token and a refresh token at least
    const dom = await page.content();
    expect(answers.length).toBeGreaterThan(0);
    const texts = await Promise.all(answers);
    expect(texts.some((t) => t.includes('"signed-in"'))).toBe(true); // the answers that told the card it is signed in
    for (const secret of secrets) {
      expect(dom).not.toContain(secret);
      for (const text of texts) expect(text).not.toContain(secret);
    }
  });

  it('Sign out warns, forgets the sign-in, and the card needs a sign-in again', async () => {
    await card().getByRole('button', { name: 'Sign out…' }).click();
    await card()
      .getByText(/forgets this server's sign-in.*cannot be undone/)
      .waitFor();
    expect(blocking(await runAxe(page, 'sign-out confirm'))).toEqual([]);
    await card()
      .getByRole('button', { name: `Sign out of ${new URL(mcpUrl()).host}` })
      .click();
    await card().getByText('Needs sign-in', { exact: true }).waitFor();
    await card().getByRole('button', { name: 'Sign in' }).waitFor();
    const listed = await hub.api<Array<{ id: string; auth?: { state: string } }>>('upstreams.list');
    expect(listed.value?.find((u) => u.auth)?.auth?.state).toBe('needs-sign-in');
  });
});

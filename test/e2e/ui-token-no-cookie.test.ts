/**
 * The browser UI's credential in Debian's Chromium against a real hub serving the built UI: the page opened
 * with the link keeps the token for its tab and sends it in the Authorization header (the events stream as
 * `?token=`), and sets no cookie, so another local server the browser visits gets nothing it could replay
 * (before, it got a session cookie that alone opened the control API). A reload, and coming back to the
 * page in the same tab, keep working; live events reach Activity; a new tab needs the link, and says only so.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, openSection, saveScreenshot, type OpenedPage } from '../support/browser.js';
import { startTestHub, type TestHub } from '../support/hub-harness.js';
import { requireBuiltUi, UI_DIR } from '../support/ui-hub.js';

let hub: TestHub;
let browser: Browser;
let other: Server;
let opened: OpenedPage;
/** The Cookie header of every request the other local server got. */
const otherCookies: string[] = [];
/** The Authorization and Cookie headers of every control request the page made. */
const apiRequests: Array<Promise<{ url: string; authorization?: string; cookie?: string }>> = [];

beforeAll(async () => {
  requireBuiltUi();
  hub = await startTestHub({ version: 1, settings: { port: 0 }, servers: {} }, { uiDir: UI_DIR });
  other = createServer((req, res) => {
    otherCookies.push(req.headers.cookie ?? '');
    res.end('another local server');
  });
  other.listen(0, '127.0.0.1');
  await once(other, 'listening');
  browser = await launchChromium();
  opened = await openPage(browser, `${hub.hub.endpoint.origin}/?token=${hub.token}`);
  opened.page.on('request', (request) => {
    if (!new URL(request.url()).pathname.startsWith('/api/')) return;
    apiRequests.push(request.allHeaders().then((h) => ({ url: request.url(), authorization: h.authorization, cookie: h.cookie })));
  });
});

afterAll(async () => {
  await browser?.close();
  other?.close();
  await hub?.stop();
});

const origin = () => hub.hub.endpoint.origin;
const otherUrl = () => `http://127.0.0.1:${(other.address() as { port: number }).port}/`;

describe('the browser UI signs in with the token, not a cookie', () => {
  it('works from the link, clears the token from the address bar, and sets no cookie', async () => {
    const { page, context } = opened;
    await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
    expect(page.url()).toBe(`${origin()}/`);
    expect(await context.cookies()).toEqual([]);
    // Reloaded with the requests watched (the token now comes from the tab's sessionStorage).
    const called = page.waitForResponse((r) => r.url().endsWith('/api/settings.get'));
    const streamed = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/events');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
    expect((await called).status()).toBe(200);
    expect((await streamed).status()).toBe(200);
    const requests = await Promise.all(apiRequests);
    for (const r of requests) {
      expect(r.cookie, r.url).toBeUndefined();
      if (new URL(r.url).pathname === '/api/events') expect(new URL(r.url).searchParams.get('token'), r.url).toBe(hub.token);
      else expect(r.authorization, r.url).toBe(`Bearer ${hub.token}`);
    }
  });

  it('another local server the browser visits gets no cookie; replaying what it got opens nothing', async () => {
    const { page } = opened;
    await page.goto(otherUrl());
    await page.getByText('another local server').waitFor();
    expect(otherCookies.length).toBeGreaterThan(0);
    expect(otherCookies.every((c) => !/spillway/i.test(c))).toBe(true);
    const replayed = await fetch(`${origin()}/api/upstreams.add`, {
      method: 'POST',
      headers: { cookie: otherCookies.join('; '), 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'x', config: { type: 'stdio', command: process.execPath, args: ['-e', '0'] } }),
    });
    expect(replayed.status).toBe(401);
    expect((await hub.api('upstreams.list')).value).toEqual([]);
  });

  it('coming back in the same tab and reloading keep working, and live events reach Activity', async () => {
    const { page } = opened;
    await page.goto(`${origin()}/`);
    await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
    await openSection(page, 'Activity');
    hub.hub.emit({ type: 'log', level: 'info', message: 'Hello from the token test' });
    await page
      .getByRole('region', { name: 'Live log' })
      .getByText(/Hello from the token test/)
      .waitFor();
    expect(await page.getByText(/not signed in/).count()).toBe(0);
    expect(opened.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  });

  it('a new tab without the link says how to sign in; with the link it works', async () => {
    const bare = await opened.context.newPage();
    await bare.goto(`${origin()}/`);
    // Only the way to sign in: no window that would fail at every step.
    await bare.getByRole('alert').filter({ hasText: 'This page is not signed in' }).waitFor();
    expect(await bare.getByText(/spillway token/).count()).toBe(1);
    expect(await bare.getByRole('navigation', { name: 'Sections' }).count()).toBe(0);
    await saveScreenshot(bare, 'ui-not-signed-in');
    await bare.goto(`${origin()}/?token=${hub.token}`);
    await bare.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
    expect(bare.url()).toBe(`${origin()}/`);
    expect(await bare.getByText(/not signed in/).count()).toBe(0);
    await bare.close();
  });
});

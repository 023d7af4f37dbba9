/**
 * A stopped hub is noticed (issue 14, item 2): `spillway serve` as a real process with server-everything,
 * the built UI in Chromium, then the process is stopped. Within 2 s the window shows that Spillway is not
 * running (banner, greyed statuses, the status line); when the same hub is started again on the same port
 * and data folder the window reconnects and reloads by itself, without a page reload.
 * Screenshots: test-artifacts/screenshots/hub-stopped-800x600.png and hub-back-800x600.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { EVERYTHING, NODE, ROOT, freePort } from '../support/hub-harness.js';
import { launchChromium, openPage, saveScreenshot, type OpenedPage } from '../support/browser.js';
import { spawnUntil, type Started } from '../support/processes.js';

const BIN = join(ROOT, 'electron/cli/spillway.js');
const UI_DIR = join(ROOT, 'dist', 'renderer');

let dir: string;
let port: number;
let hub: Started | undefined;
let browser: Browser;
let opened: OpenedPage;

function startHub(): Promise<Started> {
  const home = join(dir, 'home');
  return spawnUntil(NODE, [BIN, 'serve', '--data-dir', join(dir, 'data'), '--port', String(port)], /Spillway listening on/, {
    // Never the real user's client files.
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
  });
}

beforeAll(async () => {
  if (!existsSync(join(UI_DIR, 'index.html'))) {
    throw new Error('dist/renderer is missing: run `npx vite build --config renderer/vite.config.ts` first (npm test builds it).');
  }
  dir = await mkdtemp(join(tmpdir(), 'spillway-ui-restart-'));
  await mkdir(join(dir, 'data'), { recursive: true });
  await mkdir(join(dir, 'home'), { recursive: true });
  await writeFile(
    join(dir, 'data', 'config.json'),
    JSON.stringify({ version: 1, servers: { everything: { type: 'stdio', command: NODE, args: [EVERYTHING, 'stdio'], startMode: 'always' } } }),
  );
  port = await freePort();
  hub = await startHub();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await hub?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('the window when the hub stops and comes back', () => {
  it('shows "Spillway is not running" within 2 s, greys the statuses, and recovers by itself', async () => {
    const token = (await readFile(join(dir, 'data', 'token'), 'utf8')).trim();
    opened = await openPage(browser, `http://127.0.0.1:${port}/?token=${token}`, { width: 800, height: 600 });
    const page = opened.page;
    const card = page.getByRole('article', { name: 'everything' });
    await card.getByText('Ready', { exact: true }).waitFor({ timeout: 30_000 });
    const status = page.getByRole('contentinfo', { name: 'Status' });
    await status.getByText('Active').waitFor();
    const banner = page.getByRole('alert').filter({ hasText: 'Spillway is not running' });
    expect(await banner.count()).toBe(0);

    const stopping = hub!.stop();
    const stoppedAt = Date.now();
    await banner.waitFor({ timeout: 2_000 });
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);
    expect(await banner.textContent()).toMatch(/npm start/);
    await status.getByText(/Not running/).waitFor();
    // The last known status stays readable, but without its colour: it is no longer known to be true.
    const badge = card.locator('.badge');
    const [badgeColour, mutedColour] = await badge.evaluate((el) => {
      const doc = el.ownerDocument;
      const probe = doc.createElement('span');
      probe.style.color = 'var(--muted)';
      doc.body.append(probe);
      const style = doc.defaultView!.getComputedStyle.bind(doc.defaultView);
      const muted = style(probe).color;
      probe.remove();
      return [style(el).color, muted];
    });
    expect(badgeColour).toBe(mutedColour);
    await stopping;
    await saveScreenshot(page, 'hub-stopped-800x600');

    hub = await startHub();
    // EventSource retries by itself; once the stream is back every view reloads.
    await banner.waitFor({ state: 'detached', timeout: 20_000 });
    await status.getByText('Active').waitFor();
    await card.getByText('Ready', { exact: true }).waitFor({ timeout: 30_000 });
    expect(await page.locator('.shell.offline').count()).toBe(0);
    await saveScreenshot(page, 'hub-back-800x600');
    expect(opened.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  });
});

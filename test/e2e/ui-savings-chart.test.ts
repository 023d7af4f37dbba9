/**
 * The savings chart in real Chromium at 800x600 (issue 14, item 10), over a real hub whose ledger file
 * holds one day of calls, then a year of them: the y labels fit (nothing drawn at the canvas's left
 * edge, where a cut label would be), the legend names both series, and a screenshot of each is saved
 * (test-artifacts/screenshots/savings-chart-*.png).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ROOT } from '../support/hub-harness.js';
import { launchChromium, openPage, openSection, saveScreenshot } from '../support/browser.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { createAppHub, type AppHub } from '../../electron/core/app/app-hub.js';

const UI_DIR = join(ROOT, 'dist', 'renderer');
let browser: Browser;
const dirs: string[] = [];

beforeAll(async () => {
  if (!existsSync(join(UI_DIR, 'index.html'))) {
    throw new Error('dist/renderer is missing: run `npx vite build --config renderer/vite.config.ts` first (npm test builds it).');
  }
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A ledger line as the hub writes it: one call that produced `up` tokens and delivered `down`. */
function callLine(time: string, up: number, down: number): string {
  return JSON.stringify({
    kind: 'call',
    time,
    client: 'claude-ai',
    server: 'files',
    tool: 'read_file',
    action: 'spill',
    tokensUpstream: up,
    tokensDelivered: down,
    tokensEstimated: false,
    bytesUpstream: up * 4,
    bytesDelivered: down * 4,
    latencyMs: 12,
  });
}

/** Starts a hub on a temp data folder whose ledger holds `lines`, and opens Savings at 800x600. */
async function savingsWith(lines: string[]): Promise<{ app: AppHub; page: Page; close: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-ui-chart-'));
  dirs.push(dir);
  const home = join(dir, 'home');
  const paths = resolvePaths({ dataDir: join(dir, 'data'), os: { home, platform: 'linux', env: {} } });
  await mkdir(paths.ledgerDir, { recursive: true });
  await writeFile(paths.configFile, JSON.stringify({ version: 1, servers: {} }));
  await writeFile(join(paths.ledgerDir, 'ledger.jsonl'), lines.join('\n') + '\n');
  const app = await createAppHub({
    paths,
    platform: 'linux',
    env: {},
    port: 0,
    uiDir: UI_DIR,
    clientOs: { home, platform: 'linux', env: { HOME: home } },
  });
  await app.hub.start();
  const opened = await openPage(browser, `${app.hub.endpoint.origin}/?token=${app.hub.token}`, { width: 800, height: 600 });
  const page = opened.page;
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await openSection(page, 'Savings');
  const chart = page.getByRole('img', { name: 'Tokens produced and delivered per day' });
  await chart.locator('canvas').waitFor();
  await chart.scrollIntoViewIfNeeded();
  return {
    app,
    page,
    close: async () => {
      expect(opened.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
      await opened.context.close();
      await app.hub.stop();
    },
  };
}

/** Pixels drawn in the canvas's leftmost 3 columns: a y label cut at the edge leaves some there. */
function leftEdgeInk(page: Page): Promise<number> {
  return page.getByRole('img', { name: 'Tokens produced and delivered per day' }).evaluate((el) => {
    const canvas = el.querySelector('canvas')!;
    const ctx = canvas.getContext('2d')!;
    const { data } = ctx.getImageData(0, 0, 3, canvas.height);
    let ink = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) ink++;
    return ink;
  });
}

describe('the savings chart', () => {
  it('reads well with one day of 600,000 tokens: labels fit, a legend names the bars', async () => {
    const today = new Date().toISOString();
    const { page, close } = await savingsWith([callLine(today, 600_000, 2_000), callLine(today, 48_742, 1_000)]);
    const legend = page.getByRole('list', { name: 'Legend' });
    expect(await legend.getByRole('listitem').allTextContents()).toEqual(['Produced by the servers', 'Delivered to the model']);
    expect(await leftEdgeInk(page)).toBe(0);
    await saveScreenshot(page, 'savings-chart-one-day-800x600');
    await close();
  });

  it('reads well over a year of days', async () => {
    const now = Date.now();
    const lines = Array.from({ length: 365 }, (_, i) =>
      callLine(new Date(now - i * 86_400_000).toISOString(), 20_000 + ((i * 7919) % 580_000), 1_000 + (i % 50) * 100),
    );
    const { page, close } = await savingsWith(lines);
    expect(await leftEdgeInk(page)).toBe(0);
    await saveScreenshot(page, 'savings-chart-year-800x600');
    await close();
  });
});

/**
 * Real Chromium for end-to-end UI tests: Debian's /usr/bin/chromium driven by playwright-core (never a
 * Playwright browser download), a fresh profile per launch, and screenshots saved as test artifacts.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './hub-harness.js';

export const CHROMIUM_PATH = process.env.SPILLWAY_CHROMIUM ?? '/usr/bin/chromium';

/** Headless, no GPU, no background traffic; launch() already uses a fresh temporary profile. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SCREENSHOT_DIR = join(ROOT, 'test-artifacts', 'screenshots');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export interface PageOptions {
  width?: number;
  height?: number;
  colorScheme?: 'light' | 'dark';
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors seen so far (a view that crashes shows up here). */
  errors: string[];
}

/** A new context (own cookies) with one page at `url`, collecting page and console errors. */
export async function openPage(browser: Browser, url: string, options: PageOptions = {}): Promise<OpenedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  await page.goto(url);
  return { context, page, errors };
}

/** Saves a full-page screenshot to test-artifacts/screenshots/<name>.png and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** Opens a section of the app from its side navigation and waits for the view's heading. */
export async function openSection(page: Page, label: string, heading = label): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('button', { name: new RegExp(`^${escapeRegExp(label)}`) })
    .click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

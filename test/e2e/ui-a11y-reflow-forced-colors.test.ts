/**
 * The browser UI in Debian's Chromium against a real hub, at 200% zoom of an 800x600 window (a 400x300
 * CSS viewport) and in forced colors (Windows High Contrast), and Escape on a Browse detail (audit s16,
 * a11y): Settings and Savings need no sideways scrolling (WCAG 1.4.10), the chart shrinks when the user
 * zooms in with Savings open, the legend's swatches stay visible and keep the bars' colours, the
 * selected Servers tab is marked by more than bold text, and Escape goes back to the list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { openSection } from '../support/browser.js';
import { spillOneCall } from '../support/ui-hub.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let ui: UiInChromium;

beforeAll(async () => {
  ui = await startUiInChromium({ withRegistry: true });
  // One call in the ledger, so Savings draws its chart.
  await spillOneCall(ui.hub);
}, 60_000);

afterAll(async () => {
  await ui?.close();
});

/** How wide the view's content is against the width it has. */
const sideways = (page: Page) => page.locator('main').evaluate((m) => ({ scrollWidth: m.scrollWidth, clientWidth: m.clientWidth }));
const hasFocus = (target: Locator) => target.evaluate((el) => el === el.ownerDocument.activeElement);

describe('200% zoom of an 800x600 window (400x300)', () => {
  it('Settings: every field fits the width, and nothing needs sideways scrolling', async () => {
    const { page, context } = await ui.open({ width: 400, height: 300 });
    await openSection(page, 'Settings');
    // The select whose longest option ("Spill it: the model gets a preview…") made it ~509 px wide.
    await page.locator('#settings-action').waitFor();
    const rights = await page
      .locator('main input:not([type="checkbox"]), main select, main textarea')
      .evaluateAll((els) => els.map((el) => ({ id: el.id, right: Math.round(el.getBoundingClientRect().right) })));
    const s = await sideways(page);
    await context.close();
    expect(rights.map((r) => r.id)).toContain('settings-action');
    expect(rights.filter((r) => r.right > 400)).toEqual([]);
    expect(s.scrollWidth).toBe(s.clientWidth);
  });

  it('Savings: zooming in while it is open shrinks the chart to the new width', async () => {
    const { page, context } = await ui.open({ width: 800, height: 600 });
    await openSection(page, 'Savings');
    const canvas = page.getByRole('img', { name: 'Tokens produced and delivered per day' }).locator('canvas');
    await canvas.waitFor();
    const wide = await canvas.evaluate((c) => c.getBoundingClientRect().width);
    // Ctrl+Plus to 200%: the window stays 800x600 while the CSS viewport halves.
    await page.setViewportSize({ width: 400, height: 300 });
    // Until the ResizeObserver has redrawn it inside the view.
    const main = page.locator('main');
    await expect
      .poll(
        async () => (await canvas.evaluate((c) => c.getBoundingClientRect().right)) <= (await main.evaluate((m) => m.getBoundingClientRect().right)),
        { timeout: 5_000 },
      )
      .toBe(true);
    const narrow = await canvas.evaluate((c) => c.getBoundingClientRect().width);
    const s = await sideways(page);
    await context.close();
    expect(narrow).toBeLessThan(wide);
    expect(s.scrollWidth).toBe(s.clientWidth);
  });
});

describe('forced colors (High Contrast)', () => {
  it("the chart legend's swatches are outlined and keep the colours of the bars (a canvas keeps its colours)", async () => {
    const { page, context } = await ui.open({ width: 800, height: 600 });
    await openSection(page, 'Savings');
    const swatches = page.locator('.legend .swatch');
    await page.locator('.chart canvas').waitFor();
    const fills = () => swatches.evaluateAll((els) => els.map((el) => el.ownerDocument.defaultView!.getComputedStyle(el).backgroundColor));
    const usual = await fills();
    await page.emulateMedia({ forcedColors: 'active' });
    const forced = await swatches.evaluateAll((els) =>
      els.map((el) => {
        const style = el.ownerDocument.defaultView!.getComputedStyle.bind(el.ownerDocument.defaultView);
        const cs = style(el);
        return { border: `${cs.borderTopStyle} ${cs.borderTopWidth}`, outline: cs.borderTopColor, text: style(el.parentElement!).color };
      }),
    );
    const forcedFills = await fills();
    await context.close();
    expect(usual).toHaveLength(2);
    // Before the fix the "delivered" swatch had no border, and forced colors removed its fill.
    expect(forcedFills).toEqual(usual);
    for (const s of forced) {
      expect(s.border).toBe('solid 1px');
      expect(s.outline).toBe(s.text);
    }
  });

  it('only the selected Servers tab is underlined, in the selection colour', async () => {
    const { page, context } = await ui.open({ width: 800, height: 600 });
    await page.emulateMedia({ forcedColors: 'active' });
    await page.getByRole('tab', { name: 'Installed' }).waitFor();
    const underline = (name: string) =>
      page.getByRole('tab', { name }).evaluate((el) => {
        const style = el.ownerDocument.defaultView!.getComputedStyle.bind(el.ownerDocument.defaultView);
        const probe = el.ownerDocument.createElement('span');
        probe.style.color = 'Highlight';
        el.ownerDocument.body.append(probe);
        const highlight = style(probe).color;
        probe.remove();
        const cs = style(el);
        return { color: cs.borderBottomColor, isHighlight: cs.borderBottomColor === highlight, textColor: cs.color };
      });
    const selected = await underline('Installed');
    const other = await underline('Browse');
    await context.close();
    expect(selected.isHighlight).toBe(true);
    expect(other.isHighlight).toBe(false);
    // Before the fix both were underlined in the text colour.
    expect(other.color).not.toBe(other.textColor);
  });
});

describe('keyboard', () => {
  it("Escape leaves a Browse server's detail and puts focus back on its entry in the list", async () => {
    const { page, context } = await ui.open({ width: 1280, height: 800 });
    await page.getByRole('tab', { name: 'Browse' }).click();
    const entry = page.getByRole('list', { name: 'Servers in the registry' }).getByRole('listitem').first().getByRole('button').first();
    const id = await entry.getAttribute('id');
    await entry.click();
    await expect.poll(() => hasFocus(page.locator('#browse-detail-title'))).toBe(true);
    await page.keyboard.press('Escape');
    await page.locator('#browse-detail-title').waitFor({ state: 'detached' });
    // The list is drawn anew: its entry for that server has the focus.
    expect(id).toMatch(/^browse-entry-/);
    await expect.poll(() => hasFocus(page.locator(`[id="${id}"]`))).toBe(true);
    await context.close();
  });
});

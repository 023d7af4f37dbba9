/** Keyboard-only driving for UI tests: Tab (or Shift+Tab) until an element has the focus, as a user would. */
import type { Locator, Page } from 'playwright-core';

/**
 * Presses Tab until `target` is focused; fails after `max` presses, which means the element cannot be
 * reached with the keyboard (not focusable, or a focus trap in the way).
 */
export async function tabTo(page: Page, target: Locator, options: { backward?: boolean; max?: number } = {}): Promise<number> {
  const key = options.backward ? 'Shift+Tab' : 'Tab';
  const max = options.max ?? 80;
  await target.waitFor();
  for (let presses = 0; presses <= max; presses++) {
    if (await target.evaluate((el) => el === el.ownerDocument.activeElement)) return presses;
    await page.keyboard.press(key);
  }
  const focused = await page
    .locator(':focus')
    .evaluate((el) => el.outerHTML.slice(0, 120))
    .catch(() => '(none)');
  throw new Error(`could not reach ${String(target)} with ${key} in ${max} presses; focus is on ${focused}`);
}

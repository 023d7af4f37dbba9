/**
 * axe-core in a real page: evaluates node_modules/axe-core/axe.min.js in it and runs the WCAG 2 A/AA rules on
 * the whole document, returning a compact line per violation for the test output.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from './hub-harness.js';

const AXE_SCRIPT = join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');
let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: number;
  /** The first few offending elements, as CSS selectors. */
  targets: string[];
}

export interface AxeReport {
  name: string;
  passes: number;
  violations: AxeViolation[];
}

/** Runs axe on the page as it is now; `name` labels the result in the summary. */
export async function runAxe(page: Page, name: string): Promise<AxeReport> {
  // Evaluated over the DevTools protocol: the app's CSP (script-src 'self') rightly refuses a script tag.
  if (!(await page.evaluate(() => Reflect.has(globalThis, 'axe')))) await page.evaluate((axeSource ??= await readFile(AXE_SCRIPT, 'utf8')));
  const result = await page.locator('html').evaluate(async (html) => {
    type AxeNode = { target: unknown[] };
    type AxeRule = { id: string; impact: string | null; help: string; nodes: AxeNode[] };
    const axe: { run(ctx: unknown, opts: unknown): Promise<{ passes: AxeRule[]; violations: AxeRule[] }> } = Reflect.get(globalThis, 'axe');
    const r = await axe.run(html.ownerDocument, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return {
      passes: r.passes.length,
      violations: r.violations.map((v) => ({
        id: v.id,
        impact: v.impact ?? 'minor',
        help: v.help,
        nodes: v.nodes.length,
        targets: v.nodes.slice(0, 3).map((n) => n.target.map(String).join(' ')),
      })),
    };
  });
  return { name, ...result };
}

/** One line per checked screen, then one per violation: what the test output shows. */
export function formatAxeSummary(reports: AxeReport[]): string {
  const lines = ['axe-core results (WCAG 2.1 A/AA + best practice):'];
  for (const r of reports) {
    const counts = r.violations.map((v) => `${v.impact}:${v.id}×${v.nodes}`).join(', ');
    lines.push(`  ${r.name.padEnd(28)} ${r.passes} rules pass, ${r.violations.length} violated${counts ? ` (${counts})` : ''}`);
  }
  for (const r of reports) {
    for (const v of r.violations) lines.push(`  - [${r.name}] ${v.impact} ${v.id}: ${v.help} → ${v.targets.join(' | ')}`);
  }
  return lines.join('\n');
}

/** The violations a release may not have. */
export const blocking = (r: AxeReport) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');

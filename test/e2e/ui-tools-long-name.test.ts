/**
 * A long tool name without spaces in Tools & policies, in Chromium at 800x600 against a real hub: with its
 * policy editor open, the page does not scroll sideways. The tool name in the table, the slider labels
 * ("Preview for …") and the Reset button used to run on in one line past the right edge.
 * Screenshot under test-artifacts/screenshots/long-tool-name-800.png.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSection, saveScreenshot } from '../support/browser.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

const TOOL = 'search_company_knowledge_base_documents_by_semantic_similarity_v2';
/** Long enough that "Reset <name> to default" does not fit the editor in one line either. */
const LONGER = `${TOOL}_across_every_department_and_every_archived_workspace`;

let ui: UiInChromium;
beforeAll(async () => {
  ui = await startUiInChromium();
  const tools = join(ui.hub.dir, 'long-tools.json');
  const inputSchema = { type: 'object', properties: { q: { type: 'string' } } };
  await writeFile(tools, JSON.stringify([TOOL, LONGER].map((name) => ({ name, description: 'Searches.', inputSchema }))));
  const ready = ui.hub.nextEvent((e) => e.type === 'upstream.status' && e.server === 'kb' && e.status === 'ready');
  const added = await ui.hub.api('upstreams.add', {
    id: 'kb',
    config: { type: 'stdio', command: NODE, args: [fixture('mutable-tools-server.mjs'), tools] },
  });
  expect(added.ok, JSON.stringify(added)).toBe(true);
  await ready;
});
afterAll(() => ui?.close());

it.each([TOOL, LONGER])('the open policy editor of %s fits 800 pixels: no sideways scrolling', async (tool) => {
  const { page } = await ui.open({ width: 800, height: 600 });
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await openSection(page, 'Tools & policies');
  await page.getByRole('button', { name: `Edit policy of ${tool}`, exact: true }).click();
  const editor = page.getByRole('group', { name: `Policy for ${tool}`, exact: true });
  await editor.getByText(`Preview for ${tool}`, { exact: true }).waitFor();
  const reset = editor.getByRole('button', { name: `Reset ${tool} to default`, exact: true });
  await reset.waitFor();
  if (tool === TOOL) await saveScreenshot(page, 'long-tool-name-800');

  const widths = await page.locator('main').evaluate((main) => {
    const doc = main.ownerDocument.scrollingElement!;
    return { doc: [doc.scrollWidth, doc.clientWidth], main: [main.scrollWidth, main.clientWidth] };
  });
  expect(widths.doc[0]).toBeLessThanOrEqual(widths.doc[1]);
  expect(widths.main[0]).toBeLessThanOrEqual(widths.main[1]);
  // The Reset button stays inside the editor.
  const [button, box] = [await reset.boundingBox(), await editor.boundingBox()];
  expect(Math.round(button!.x + button!.width)).toBeLessThanOrEqual(Math.round(box!.x + box!.width));
});

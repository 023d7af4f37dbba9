/**
 * Restore backup in the Clients view follows the hub's `restorable`: absent for an app Spillway never changed
 * (a Restore there could only say there is no earlier version), present after Connect → Disconnect of a file
 * Spillway had created, though Disconnect deleted that file ("Restore brings it back"), and pressing it
 * brings the file back. The built window in Chromium over a real hub with a temporary HOME.
 */
import { access, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSection } from '../support/browser.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let ui: UiInChromium;
beforeAll(async () => {
  ui = await startUiInChromium();
  // Cursor is installed (its folder exists) but has no mcp.json yet: Connect creates it.
  await mkdir(join(ui.hub.home, '.cursor'), { recursive: true });
}, 60_000);
afterAll(() => ui?.close());

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

it('Restore backup: absent for an untouched app, offered after Disconnect deleted the file Spillway created, and brings it back', async () => {
  const file = join(ui.hub.home, '.cursor', 'mcp.json');
  const { page } = await ui.open({ width: 1000, height: 800 });
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await openSection(page, 'Clients');

  // Claude Desktop has a config file Spillway never changed; Cursor has none yet.
  const desktop = page.getByRole('listitem', { name: 'Claude Desktop' });
  await desktop.getByRole('button', { name: 'Import servers' }).waitFor();
  expect(await desktop.getByRole('button', { name: 'Restore backup' }).count()).toBe(0);
  const cursor = page.getByRole('listitem', { name: 'Cursor' });
  await cursor.getByRole('button', { name: 'Connect' }).waitFor();
  expect(await cursor.getByRole('button', { name: 'Restore backup' }).count()).toBe(0);

  await cursor.getByRole('button', { name: 'Connect' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Connect' }).click();
  await cursor.getByRole('button', { name: 'Disconnect' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Disconnect' }).click();
  const note = cursor.getByRole('status').filter({ hasText: 'Disconnected' });
  await note.waitFor();
  expect(await note.innerText()).toContain('Restore brings it back');
  expect(await exists(file)).toBe(false);

  // The list refreshes after Disconnect: Restore is offered though the file is gone.
  const restore = cursor.getByRole('button', { name: 'Restore backup' });
  await restore.waitFor({ timeout: 10_000 });
  await restore.click();
  await page.getByRole('dialog', { name: "Restore Cursor's settings" }).getByRole('button', { name: 'Restore backup' }).click();
  await cursor.getByRole('status').filter({ hasText: 'Restored' }).waitFor();
  expect(await cursor.getByRole('alert').count()).toBe(0);
  const restored = JSON.parse(await readFile(file, 'utf8')) as { mcpServers: Record<string, unknown> };
  expect(Object.keys(restored.mcpServers)).toEqual(['spillway']);
  await cursor
    .getByTestId('client-state')
    .filter({ hasText: /^Connected$/ })
    .waitFor();
  // The Connect is still there to undo.
  expect(await restore.count()).toBe(1);
}, 60_000);

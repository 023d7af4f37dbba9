/**
 * A whole command line typed in Command, as READMEs print it (`node /…/server-memory/dist/index.js`),
 * in Debian's Chromium against a real hub (audit s14, window, item 1): the form moves the words after
 * the program to Arguments and says so, and the server it adds starts. It used to be saved as one
 * program's name, and its card said that "program" could not be found.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MEMORY, NODE } from '../support/hub-harness.js';
import { saveScreenshot } from '../support/browser.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let ui: UiInChromium;

beforeAll(async () => {
  ui = await startUiInChromium({ withBigServer: true });
});

afterAll(async () => {
  await ui?.close();
});

it('splits the line into the program and its arguments, and the server starts', async () => {
  const { page } = await ui.open({ width: 1100, height: 760 });
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await page.getByRole('button', { name: 'Add server' }).click();
  const form = page.getByRole('form', { name: 'Add a server' });
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('memory');
  const command = form.getByRole('textbox', { name: 'Command', exact: true });
  await command.fill(`${NODE} ${MEMORY}`);
  await command.press('Tab');
  expect(await command.inputValue()).toBe(NODE);
  expect(await form.getByRole('textbox', { name: 'Arguments, one per line' }).inputValue()).toBe(MEMORY);
  await form
    .getByRole('status')
    .getByText(/moved the words after .* to Arguments/)
    .waitFor();
  await saveScreenshot(page, 'command-line-split');

  await form.getByRole('button', { name: 'Add server' }).click();
  await page.getByRole('article', { name: 'memory' }).getByText('Ready', { exact: true }).waitFor({ timeout: 30_000 });
  const list = await ui.hub.api<Array<{ id: string; config: unknown }>>('upstreams.list');
  expect(list.value?.find((u) => u.id === 'memory')?.config).toMatchObject({ command: NODE, args: [MEMORY] });
});

it('splits it too when Enter in Command adds the server at once', async () => {
  const { page } = await ui.open({ width: 1100, height: 760 });
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await page.getByRole('button', { name: 'Add server' }).click();
  const form = page.getByRole('form', { name: 'Add a server' });
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('memory two');
  await form.getByRole('textbox', { name: 'Command', exact: true }).fill(`${NODE} ${MEMORY}`);
  await form.getByRole('textbox', { name: 'Command', exact: true }).press('Enter');
  await page.getByRole('article', { name: 'memory two' }).getByText('Ready', { exact: true }).waitFor({ timeout: 30_000 });
});

/**
 * The Clients view's "Any other client": the address it hands out (with its key, shown on request) answers
 * that client; the bare address it used to give got 401.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openSection } from '../support/browser.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let s: UiInChromium;
beforeAll(async () => {
  s = await startUiInChromium();
}, 60_000);
afterAll(() => s?.close());

it('the address with key from the Clients view answers another MCP client', async () => {
  const { page } = await s.open();
  await openSection(page, 'Clients');
  const section = page.getByRole('region', { name: 'Any other client' });
  expect(await section.textContent()).not.toMatch(/token=/);
  await section.getByRole('button', { name: 'Show address with key' }).click();
  const address = (await section.getByLabel('Address with key').textContent()) ?? '';
  expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\?token=/);
  const client = new Client({ name: 'other-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(address)));
  await client.listTools();
  await client.close();
  await section.getByRole('button', { name: 'Hide the key' }).click();
  expect(await section.textContent()).not.toMatch(/token=/);
}, 60_000);

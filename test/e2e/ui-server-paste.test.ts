/**
 * Issue 14, items 5 and 6 in the built renderer, in Chromium against a real hub: what users paste into the
 * server form (a snippet with trailing commas and a comment, a whole claude_desktop_config.json, an
 * `npx -y …` command line) fills it, a broken one is refused in a sentence, and Settings warns about a
 * preview not below the threshold. Waits on locators, never on sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestHub, type TestHub } from '../support/hub-harness.js';
import { launchChromium, openPage, openSection } from '../support/browser.js';
import { requireBuiltUi, UI_DIR } from '../support/ui-hub.js';

let hub: TestHub;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  requireBuiltUi();
  hub = await startTestHub({ version: 1, servers: {} }, { uiDir: UI_DIR });
  browser = await launchChromium();
  page = (await openPage(browser, `${hub.hub.endpoint.origin}/?token=${hub.token}`)).page;
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await hub?.stop();
});

const CLAUDE_DESKTOP = `{
  "globalShortcut": "",
  "mcpServers": {
    "fetch": { "command": "uvx", "args": ["mcp-server-fetch"] }
  }
}
`;

describe('pasting a server into the form, in Chromium', () => {
  const cases: Array<[string, string, { name: string; command: string; args: string }]> = [
    [
      'a snippet with a comment and trailing commas',
      '{\n  // from the README\n  "mcpServers": { "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory",], }, },\n}',
      { name: 'memory', command: 'npx', args: '-y\n@modelcontextprotocol/server-memory' },
    ],
    ['a whole claude_desktop_config.json', CLAUDE_DESKTOP, { name: 'fetch', command: 'uvx', args: 'mcp-server-fetch' }],
    [
      'an npx command line',
      'npx -y @modelcontextprotocol/server-filesystem /tmp',
      { name: 'filesystem', command: 'npx', args: '-y\n@modelcontextprotocol/server-filesystem\n/tmp' },
    ],
    // Session 12 audit: these used to fill Command with `claude` and "```json".
    [
      'a claude mcp add line',
      'claude mcp add memory -- npx -y @modelcontextprotocol/server-memory',
      { name: 'memory', command: 'npx', args: '-y\n@modelcontextprotocol/server-memory' },
    ],
    ['a snippet inside its ```json fence', '```json\n' + CLAUDE_DESKTOP + '```\n', { name: 'fetch', command: 'uvx', args: 'mcp-server-fetch' }],
  ];
  it.each(cases)('fills the form from %s', async (_label, text, want) => {
    await page.getByRole('button', { name: 'Add server' }).click();
    const form = page.getByRole('form', { name: 'Add a server' });
    await form.getByText(/^Paste a snippet/).click();
    await form.getByLabel(/JSON with/).fill(text);
    await form.getByRole('button', { name: 'Fill the form' }).click();
    await expect.poll(() => form.getByLabel('Name', { exact: true }).inputValue()).toBe(want.name);
    expect(await form.getByLabel('Command', { exact: true }).inputValue()).toBe(want.command);
    expect(await form.getByLabel('Arguments, one per line').inputValue()).toBe(want.args);
    expect(await form.getByRole('alert').count()).toBe(0);
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });
  });

  it('refuses broken JSON in a sentence, not in the parser’s words', async () => {
    await page.getByRole('button', { name: 'Add server' }).click();
    const form = page.getByRole('form', { name: 'Add a server' });
    await form.getByText(/^Paste a snippet/).click();
    await form.getByLabel(/JSON with/).fill('{"mcpServers": {"a": {"command": "npx" "args": []}}}');
    await form.getByRole('button', { name: 'Fill the form' }).click();
    const alert = await form.getByRole('alert').textContent();
    expect(alert).toMatch(/^This is not JSON Spillway can read \(a comma was expected at line 1, column \d+\)\./);
    expect(alert).not.toMatch(/Unexpected token/);
    await form.getByRole('button', { name: 'Cancel' }).click();
  });
});

describe('Add all, in Chromium (session 12 audit)', () => {
  it('adds each pasted server once, opens the one that failed in the form, and keeps the section open', async () => {
    await page.getByRole('button', { name: 'Add server' }).click();
    const form = page.getByRole('form', { name: 'Add a server' });
    await form.getByText(/^Paste a snippet/).click();
    const snippet = form.getByLabel(/JSON with/);
    // An error first: the next good paste must not fold the section away with "Add all" in it.
    await snippet.fill('{"mcpServers": {');
    await form.getByRole('button', { name: 'Fill the form' }).click();
    await form.getByText(/^This is not JSON Spillway can read/).waitFor();
    await snippet.fill(
      JSON.stringify({
        mcpServers: {
          one: { command: 'node', args: ['one.js'] },
          two: { command: 'node', args: ['two.js'] },
          broken: { command: 'node', args: ['broken.js'], env: { '': 'x' } },
        },
      }),
    );
    await form.getByRole('button', { name: 'Fill the form' }).click();
    await form.getByRole('button', { name: 'Add all 3' }).click();
    await form.getByText(/^“broken” was not added: it is in the form below/).waitFor();
    expect(await form.getByLabel('Name', { exact: true }).inputValue()).toBe('broken');
    expect(await form.getByRole('button', { name: /^Add all/ }).count()).toBe(0);
    const listed = await hub.api<Array<{ id: string }>>('upstreams.list');
    expect(listed.value?.map((s) => s.id).sort()).toEqual(['one', 'two']);
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });
  });
});

describe('Settings, in Chromium', () => {
  it('warns when the preview is not below the threshold, and the hub names a bad value in words', async () => {
    await openSection(page, 'Settings');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await page.getByLabel('Preview the model sees, exact tokens').fill('20000');
    await page.getByLabel('Preview the model sees, exact tokens').press('Enter');
    await page.getByText(/^The preview \(20,000 tokens\) is not below the threshold \(10,000 tokens\)/).waitFor();
    const refused = await hub.api('settings.set', { spill: { thresholdTokens: 0 } });
    expect(refused).toMatchObject({ ok: false, field: 'spill.thresholdTokens', message: 'The spill threshold must be at least 1 token.' });
  });
});

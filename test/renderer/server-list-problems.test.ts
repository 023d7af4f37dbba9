/**
 * A server that refuses a list it declares (its prompts/list answers "Method not found") is served with
 * that list empty. The user sees why on the server's card, in plain words with what to do next, not only
 * apps in their logs.
 */
import { expect, it } from 'vitest';
import { screen, within } from '@testing-library/svelte';
import { renderServers } from './render-views.js';

const FILES = () => ({ type: 'stdio' as const, command: 'node', args: [], env: {}, enabled: true, prefix: true });

it("shows a refused list on the server's card, with what apps miss and what to do", async () => {
  await renderServers((f) => {
    const info = f.seedServer('partial', FILES());
    info.listProblems = [{ list: 'prompts', message: 'MCP error -32601: Method not found' }];
    f.seedServer('files', FILES());
  });
  const card = screen.getByRole('article', { name: 'partial' });
  const list = within(card).getByRole('list', { name: 'Lists this server refused' });
  const text = list.textContent ?? '';
  expect(text).toMatch(/says it offers prompts but refused to list them, so apps see none of its prompts/);
  expect(text).toMatch(/Its tools work as usual/);
  expect(text).toMatch(/Method not found/);
  expect(text).toMatch(/Restart tries again/);
  // A server without one shows nothing of the kind.
  expect(within(screen.getByRole('article', { name: 'files' })).queryByRole('list', { name: 'Lists this server refused' })).toBeNull();
});

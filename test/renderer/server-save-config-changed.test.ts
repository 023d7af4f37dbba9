/**
 * The Edit form offers Reload only for a server changed since it was opened (a `conflict` at `revision`).
 * Any other refusal of Save (config.json edited by hand, which a Reload of the hub's unchanged copy cannot
 * help) is said as the form's problem, and what was typed stays (audit s16 fixes, item 5).
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/svelte';
import type { ServerConfig } from '../../shared/config.js';
import { renderServers as setup } from './render-views.js';

const WORK: ServerConfig = { type: 'http', url: 'https://work.example.com/mcp', headers: {}, enabled: true, prefix: true };
const form = () => within(screen.getByRole('form', { name: 'Edit work' }));
const card = () => within(screen.getByRole('article', { name: 'work' }));
const CHANGED =
  'This change was not saved: /home/u/.config/spillway/config.json was changed outside Spillway since Spillway read it, and saving would undo that edit. Restart Spillway to pick up the edit, then make the change again.';

describe('Servers: a save refused because config.json changed on disk', () => {
  it('is not offered a Reload that cannot help', async () => {
    const { fake } = await setup((f) => f.seedServer('work', WORK));
    await fireEvent.click(card().getByRole('button', { name: 'Edit' }));
    fake.failNext('upstreams.update', { code: 'conflict', message: CHANGED });
    await fireEvent.click(form().getByRole('button', { name: 'Save changes' }));
    await form().findByText(/changed outside Spillway/);
    expect(form().queryByRole('button', { name: 'Reload current settings' })).toBeNull();
  });
});

/**
 * Escape on a Browse entry's detail page (audit s16, a11y): it goes back to the list with keyboard focus
 * on the entry, as Back does, and not when a control inside the page already acted on the key. While the
 * Set up form is open, Escape acts as the form's Cancel (as in the Add server form): the form closes with
 * focus on its Set up button, and a second Escape goes back to the list.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { renderBrowse } from './render-views.js';

/** Opens Neon's detail page and waits for focus on its title. */
async function openNeon(): Promise<HTMLElement> {
  await renderBrowse();
  await fireEvent.click(screen.getByRole('button', { name: 'Neon' }));
  const detail = await screen.findByRole('article', { name: 'Neon' });
  await waitFor(() => expect(document.activeElement?.id).toBe('browse-detail-title'));
  return detail;
}

describe('Servers: Browse, Escape on a detail page', () => {
  it('goes back to the list with keyboard focus on the entry that was open', async () => {
    await openNeon();
    await fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Neon' })).toBeNull());
    await waitFor(() => expect(document.activeElement?.textContent?.trim()).toBe('Neon'));
    expect(document.activeElement?.closest('ul')?.getAttribute('aria-label')).toBe('Servers in the registry');
  });

  it('stays when a control inside already acted on Escape', async () => {
    const detail = await openNeon();
    const back = within(detail).getByRole('button', { name: '← Back to the list' });
    // A control that handles Escape itself (an open list, a search box) cancels the key's default.
    back.addEventListener('keydown', (e) => e.preventDefault(), { once: true });
    await fireEvent.keyDown(back, { key: 'Escape' });
    expect(screen.getByRole('article', { name: 'Neon' })).toBeTruthy();
  });

  it('while the Set up form is open, cancels the form first, and a second Escape goes back', async () => {
    await openNeon();
    await fireEvent.click(await screen.findByRole('button', { name: 'Set up this remote' }));
    const form = within(await screen.findByRole('form', { name: /Set up Remote server/ }));
    const auth = form.getByLabelText(/Authorization/) as HTMLInputElement;
    await fireEvent.input(auth, { target: { value: 'Bearer neon-key' } });
    await fireEvent.keyDown(auth, { key: 'Escape' });
    // As Cancel: the form closes, the page stays, focus goes back to the button that opened the form.
    await waitFor(() => expect(screen.queryByRole('form', { name: /Set up Remote server/ })).toBeNull());
    expect(screen.getByRole('article', { name: 'Neon' })).toBeTruthy();
    await waitFor(() => expect(document.activeElement?.textContent?.trim()).toBe('Set up this remote'));

    await fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Neon' })).toBeNull());
    await waitFor(() => expect(document.activeElement?.textContent?.trim()).toBe('Neon'));
  });

  it('while the Set up form is open, Escape elsewhere on the page (on Back) also cancels the form first', async () => {
    const detail = await openNeon();
    await fireEvent.click(await screen.findByRole('button', { name: 'Set up this remote' }));
    await screen.findByRole('form', { name: /Set up Remote server/ });
    await fireEvent.keyDown(within(detail).getByRole('button', { name: '← Back to the list' }), { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('form', { name: /Set up Remote server/ })).toBeNull());
    expect(screen.getByRole('article', { name: 'Neon' })).toBeTruthy();
    await waitFor(() => expect(document.activeElement?.textContent?.trim()).toBe('Set up this remote'));
  });
});

/**
 * Browse when the registry or the user does the unexpected (audit s15): a page that lists one server
 * twice (a registry that ignores `version=latest`) shows it once and Browse keeps working; a search
 * typed while an earlier one is still waiting replaces it; Cancel on a form puts keyboard focus back
 * on the Set up button it came from.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { REGISTRY_SERVERS } from './fake-registry.js';
import { renderBrowse } from './render-views.js';

const names = () =>
  [...screen.getByRole('list', { name: 'Servers in the registry' }).querySelectorAll('.name')].map((p) => p.textContent?.split(' · ')[0]);

const server = (name: string) => REGISTRY_SERVERS.find((s) => s.name === name)!;

describe('Browse: unexpected answers', () => {
  it('a server listed twice, on one page and again on the next, is shown once', async () => {
    const neon = server('com.neon/mcp');
    const pages = [
      [server('com.100hires/100hires'), { ...neon, version: '0.8.0' }, neon],
      [neon, server('com.textarttools/textarttools-mcp')],
    ];
    await renderBrowse((fake) => {
      fake.registry.handlers['registry.search'] = (req) => ({
        ok: true,
        value: { servers: pages[req.cursor ? 1 : 0], skipped: 0, ...(req.cursor ? {} : { nextCursor: 'page-2' }) },
      });
    });
    expect(names()).toEqual(['com.100hires/100hires', 'com.neon/mcp']);
    await fireEvent.click(screen.getByRole('button', { name: 'More servers' }));
    await waitFor(() => expect(names()).toEqual(['com.100hires/100hires', 'com.neon/mcp', 'com.textarttools/textarttools-mcp']));
    // Browse still works: an entry opens.
    await fireEvent.click(screen.getByRole('button', { name: 'Neon' }));
    expect(await screen.findByRole('article', { name: 'Neon' })).toBeTruthy();
  });

  it('a new search while the last one is still waiting: Search stays usable and the new one is shown', async () => {
    const { fake } = await renderBrowse();
    fake.hold('registry.search');
    const box = screen.getByLabelText('Search servers');
    const searchButton = screen.getByRole('button', { name: 'Search' });
    await fireEvent.input(box, { target: { value: 'neon' } });
    await fireEvent.click(searchButton);
    expect(await screen.findByText(/Loading servers from the registry/)).toBeTruthy();
    expect(searchButton.hasAttribute('disabled')).toBe(false);

    await fireEvent.input(box, { target: { value: 'terraform' } });
    await fireEvent.click(searchButton);
    await waitFor(() => expect(fake.callsOf('registry.search').at(-1)).toEqual({ query: 'terraform' }));
    fake.release();
    await waitFor(() => expect(names()).toEqual(['io.github.hashicorp/terraform-mcp-server']));
  });

  it('Cancel on a form puts keyboard focus on the Set up button it came from', async () => {
    await renderBrowse();
    await fireEvent.click(screen.getByRole('button', { name: 'Neon' }));
    const detail = await screen.findByRole('article', { name: 'Neon' });
    await fireEvent.click(within(detail).getByRole('button', { name: 'Set up this remote' }));
    const form = within(await screen.findByRole('form', { name: /Set up Remote server/ }));
    await fireEvent.click(form.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(document.activeElement?.textContent?.trim()).toBe('Set up this remote'));
    expect(document.activeElement?.closest('article')).toBe(screen.getByRole('article', { name: 'Neon' }));
  });
});

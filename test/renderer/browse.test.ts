/**
 * Servers → Browse (issue 16): search with paging, the detail page with the hub's own summary, the form
 * generated from the declared fields, and Add landing on the new server's status. The fake backend
 * answers with what the hub answered for the registry fixture's entries.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { renderBrowse } from './render-views.js';

const titles = (list: HTMLElement) =>
  within(list)
    .getAllByRole('button')
    .map((b) => b.textContent?.trim());

describe('Servers: Browse', () => {
  it('lists the registry page by page with a letter for each server, and searches by name on Enter', async () => {
    const { fake, list } = await renderBrowse();
    expect(screen.getByRole('tab', { name: 'Browse' }).getAttribute('aria-selected')).toBe('true');
    expect(titles(list)).toEqual(['100Hires', 'Neon', 'textarttools-mcp']);
    expect(within(list).getByText('deprecated')).toBeTruthy();
    // Registry icons are https images the window's policy does not load: a letter stands in.
    expect(list.querySelector('img')).toBeNull();
    expect(within(list).getAllByText('N', { selector: '.avatar' })).toHaveLength(1);

    await fireEvent.click(screen.getByRole('button', { name: 'More servers' }));
    await waitFor(() => expect(titles(screen.getByRole('list', { name: 'Servers in the registry' }))).toHaveLength(5));
    expect(fake.callsOf('registry.search')[1]).toEqual({ cursor: 'com.textarttools/textarttools-mcp:1.1.0' });
    expect(screen.queryByRole('button', { name: 'More servers' })).toBeNull();

    const box = screen.getByLabelText('Search servers');
    await fireEvent.input(box, { target: { value: 'terraform' } });
    await fireEvent.submit(box.closest('form')!);
    await waitFor(() => expect(titles(screen.getByRole('list', { name: 'Servers in the registry' }))).toEqual(['Terraform']));
    expect(fake.callsOf('registry.search').at(-1)).toEqual({ query: 'terraform' });

    await fireEvent.input(box, { target: { value: 'nothing-like-this' } });
    await fireEvent.submit(box.closest('form')!);
    expect(await screen.findByText('No servers match “nothing-like-this”')).toBeTruthy();
    expect(screen.getByText(/every word in the servers' names, titles and descriptions/)).toBeTruthy();
  });

  it('registry unreachable and nothing kept: says only the servers that come with Spillway were searched', async () => {
    const notice =
      'Could not reach the registry at https://registry.example. Showing the servers that come with Spillway; the whole catalog is searchable once the registry can be reached.';
    const { fake } = await renderBrowse();
    fake.registry.cachedNotice = notice;
    fake.registry.builtIn = true;
    const box = screen.getByLabelText('Search servers');
    await fireEvent.input(box, { target: { value: 'airtable' } });
    await fireEvent.submit(box.closest('form')!);
    expect(await screen.findByText('None of the servers that come with Spillway match “airtable”')).toBeTruthy();
    expect(screen.getByText(/The registry cannot be reached right now, so only the servers that come with Spillway were searched/)).toBeTruthy();
    expect(screen.queryByText(/server names only|Try a shorter word/)).toBeNull();
  });

  it('Back to the list puts keyboard focus on the entry that was open', async () => {
    await renderBrowse();
    const entry = screen.getByRole('button', { name: 'Neon' });
    await fireEvent.click(entry);
    const detail = await screen.findByRole('article', { name: 'Neon' });
    await waitFor(() => expect(document.activeElement?.id).toBe('browse-detail-title'));
    await fireEvent.click(within(detail).getByRole('button', { name: '← Back to the list' }));
    await waitFor(() => expect(document.activeElement?.textContent?.trim()).toBe('Neon'));
    expect(document.activeElement?.closest('ul')?.getAttribute('aria-label')).toBe('Servers in the registry');
  });

  it('search → detail → form → Add: the server is added and the user lands on its status', async () => {
    const { fake } = await renderBrowse();
    const box = screen.getByLabelText('Search servers');
    await fireEvent.input(box, { target: { value: 'terraform' } });
    await fireEvent.submit(box.closest('form')!);
    await fireEvent.click(await screen.findByRole('button', { name: 'Terraform' }));

    const detail = await screen.findByRole('article', { name: 'Terraform' });
    expect(within(detail).getByText('io.github.hashicorp/terraform-mcp-server · version 1.2.0')).toBeTruthy();
    expect(within(detail).getByRole('link', { name: 'Source code' }).getAttribute('href')).toBe('https://github.com/hashicorp/terraform-mcp-server');
    expect(within(detail).getByText(/^Runs on this computer: docker run -i --rm -e TFE_ADDRESS/)).toBeTruthy();
    await waitFor(() => expect(document.activeElement?.id).toBe('browse-detail-title'));

    await fireEvent.click(within(detail).getByRole('button', { name: 'Set up this package' }));
    const form = within(await screen.findByRole('form', { name: /Set up Container image/ }));
    expect((form.getByLabelText('address') as HTMLInputElement).value).toBe('https://app.terraform.io');
    const token = form.getByLabelText(/token/) as HTMLInputElement;
    expect(token.type).toBe('password');
    const enabled = form.getByLabelText('enabled') as HTMLSelectElement;
    expect(enabled.tagName).toBe('SELECT');
    expect(enabled.value).toBe('false');

    await fireEvent.input(token, { target: { value: 'tf-SECRET' } });
    await fireEvent.change(enabled, { target: { value: 'true' } });
    await fireEvent.click(form.getByRole('button', { name: 'Add' }));

    await waitFor(() => expect(screen.getByRole('tab', { name: 'Installed' }).getAttribute('aria-selected')).toBe('true'));
    expect(fake.callsOf('registry.add')).toEqual([
      {
        name: 'io.github.hashicorp/terraform-mcp-server',
        version: '1.2.0',
        package: 0,
        values: { 'var:address': 'https://app.terraform.io', 'var:token': 'tf-SECRET', 'var:enabled': 'true' },
      },
    ]);
    const card = await screen.findByRole('article', { name: 'Terraform' });
    expect(within(card).getByText('Ready')).toBeTruthy();
    const notice = document.getElementById('servers-added');
    expect(notice?.textContent).toContain('Added Terraform. Its status is shown on its card below.');
    await waitFor(() => expect(document.activeElement).toBe(notice));
  });

  it("shows the hub's message under the field it names, and marks required fields", async () => {
    const { fake } = await renderBrowse();
    await fireEvent.click(await screen.findByRole('button', { name: 'Neon' }));
    await fireEvent.click(await screen.findByRole('button', { name: 'Set up this remote' }));
    const form = within(await screen.findByRole('form', { name: /Set up Remote server/ }));
    expect(form.getByText('(required)')).toBeTruthy();
    const auth = form.getByLabelText(/Authorization/) as HTMLInputElement;
    expect(auth.type).toBe('password');
    await waitFor(() => expect(document.activeElement).toBe(auth));

    await fireEvent.click(form.getByRole('button', { name: 'Add' }));
    expect((await form.findByRole('alert')).textContent).toBe('Authorization is required');
    expect(auth.getAttribute('aria-invalid')).toBe('true');
    expect(auth.getAttribute('aria-describedby')).toContain('-error');
    expect(fake.servers.size).toBe(0);

    await fireEvent.input(auth, { target: { value: 'Bearer neon-key' } });
    await fireEvent.click(form.getByRole('button', { name: 'Add' }));
    expect(await screen.findByRole('article', { name: 'Neon' })).toBeTruthy();
    expect(fake.servers.get('mcp')?.config).toMatchObject({ type: 'http', label: 'Neon' });
  });

  it("a missing runtime: the hub's plain words with the next step, and no way to add it yet", async () => {
    await renderBrowse();
    await fireEvent.click(screen.getByRole('button', { name: 'More servers' }));
    await fireEvent.click(await screen.findByRole('button', { name: 'time-mcp-nuget' }));
    const detail = await screen.findByRole('article', { name: 'time-mcp-nuget' });
    expect(within(detail).getByRole('note').textContent).toMatch(
      /needs the \.NET 10 SDK.*dotnet\.microsoft\.com\/download, then add the server again/,
    );
    expect(within(detail).queryByRole('button', { name: /Set up/ })).toBeNull();
    expect(within(detail).getByRole('button', { name: 'Check again' })).toBeTruthy();

    await fireEvent.click(within(detail).getByRole('button', { name: '← Back to the list' }));
    expect(await screen.findByRole('list', { name: 'Servers in the registry' })).toBeTruthy();
  });

  it('registry unreachable: the cached answer with its notice; no cache: the error in plain words', async () => {
    const notice = 'Cached, from 2026-11-24T09:00:00.000Z: Could not reach the registry at https://registry.example. Check your internet connection.';
    const { fake } = await renderBrowse((f) => (f.registry.cachedNotice = notice));
    expect(screen.getByText(notice).getAttribute('role')).toBe('status');

    fake.failNext('registry.search', {
      code: 'unavailable',
      message: 'Could not reach the registry at https://registry.example. Check your internet connection.',
    });
    const box = screen.getByLabelText('Search servers');
    await fireEvent.input(box, { target: { value: 'neon' } });
    await fireEvent.submit(box.closest('form')!);
    expect((await screen.findByRole('alert')).textContent).toContain('Could not reach the registry');
    expect(screen.queryByRole('list', { name: 'Servers in the registry' })).toBeNull();
  });
});

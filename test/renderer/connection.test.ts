import { afterEach, describe, expect, it } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../renderer/src/App.svelte';
import { FakeBackend } from './fake-backend.js';

afterEach(() => localStorage.clear());

describe('the window when the hub stops answering (issue 14, item 2)', () => {
  it('shows a banner with what to do, greys the status line, and reloads everything when the hub is back', async () => {
    const fake = new FakeBackend();
    fake.seedServer('files', { type: 'stdio', command: 'files-server', args: [], env: {}, enabled: true, prefix: true });
    render(App, { backend: fake, flags: { getItem: () => '1', setItem: () => {} } });
    const footer = screen.getByRole('contentinfo', { name: 'Status' });
    await waitFor(() => expect(within(footer).getByText('Active')).toBeTruthy());
    expect(screen.queryByRole('alert')).toBeNull();

    fake.setConnected(false);
    const banner = await screen.findByRole('alert');
    expect(banner.textContent).toContain('Spillway is not running');
    expect(banner.textContent).toContain('npm start');
    expect(within(footer).getByText(/Not running/)).toBeTruthy();
    expect(within(footer).queryByText('Active')).toBeNull();

    const before = fake.callsOf('upstreams.list').length;
    fake.setConnected(true);
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    await waitFor(() => expect(fake.callsOf('upstreams.list').length).toBeGreaterThan(before));
    expect(fake.callsOf('savings.report').length).toBeGreaterThan(1);
    await waitFor(() => expect(within(footer).getByText('Active')).toBeTruthy());
  });
});

/** A slow Test says how long it has been running, instead of "Testing…" alone for 30 s. */
import { afterEach, expect, it, vi } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/svelte';
import { renderServers } from './render-views.js';

afterEach(() => vi.useRealTimers());

it('shows the seconds a Test has been running, and nothing once it answered', async () => {
  const { fake } = await renderServers();
  await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
  const form = within(screen.getByRole('form'));
  await fireEvent.input(form.getByLabelText('Name'), { target: { value: 'slow' } });
  await fireEvent.input(form.getByLabelText('Command'), { target: { value: 'slow-server' } });
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
  fake.hold('upstreams.test');
  await fireEvent.click(form.getByRole('button', { name: 'Test' }));
  await vi.advanceTimersByTimeAsync(5_000);
  expect(form.getByRole('status').textContent).toMatch(/^Starting the server: 5 s so far\./);
  fake.release();
  await vi.waitFor(() => expect(form.queryByRole('button', { name: 'Test' })).not.toBeNull());
  expect(form.queryByText(/so far/)).toBeNull();
});

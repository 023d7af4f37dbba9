/**
 * Settings → Storage when the spill index was damaged: the results it listed are not listed any more,
 * but their folders still take disk space until Clear (or the next start) removes them. Clear must stay
 * enabled and the size must count them.
 */
import { afterEach, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import SpilledStorage from '../../renderer/src/views/SpilledStorage.svelte';
import { SpillStorageState } from '../../renderer/src/lib/spill-storage.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

it('keeps Clear enabled while a damaged index leaves result folders on disk, and says so', async () => {
  const fake = new FakeBackend();
  let left = { unlisted: 2, unlistedBytes: 12_288 };
  fake.spill.handlers['spill.usage'] = () => ({
    ok: true,
    value: { entries: 0, bytes: left.unlistedBytes, quotaBytes: 1024 ** 3, ...(left.unlisted ? left : {}) },
  });
  fake.spill.handlers['spill.clear'] = () => {
    const deleted = left.unlisted;
    left = { unlisted: 0, unlistedBytes: 0 };
    return { ok: true, value: { deleted } };
  };
  const storage = new SpillStorageState(fake);
  stop = storage.start();
  render(SpilledStorage, { storage });

  expect(await screen.findByText(/12 KB on disk/)).toBeTruthy();
  const clear = screen.getByRole('button', { name: 'Clear spilled results' }) as HTMLButtonElement;
  expect(clear.disabled).toBe(false);
  expect(screen.getByText(/2 earlier results could not be listed/).textContent).toMatch(/Clear removes them/);

  await fireEvent.click(clear);
  const dialog = screen.getByRole('dialog', { name: 'Clear spilled results?' });
  await fireEvent.click(within(dialog).getByRole('button', { name: 'Delete 2 results' }));
  expect(await screen.findByText('Deleted 2 spilled results')).toBeTruthy();
  await waitFor(() => expect((screen.getByRole('button', { name: 'Clear spilled results' }) as HTMLButtonElement).disabled).toBe(true));
  expect(screen.queryByText(/could not be listed/)).toBeNull();
});

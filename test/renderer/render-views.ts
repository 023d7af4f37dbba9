/**
 * The Servers view (or its Browse tab) and the Settings view rendered against a fake backend, their
 * states started, and stopped again after each test (this module registers the afterEach).
 */
import { afterEach, expect } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import ServersView from '../../renderer/src/views/ServersView.svelte';
import SettingsView from '../../renderer/src/views/SettingsView.svelte';
import { BrowseState } from '../../renderer/src/lib/browse.svelte.js';
import { ServersState } from '../../renderer/src/lib/servers.svelte.js';
import { SettingsState } from '../../renderer/src/lib/settings.svelte.js';
import { SpillStorageState } from '../../renderer/src/lib/spill-storage.svelte.js';
import { PoliciesState } from '../../renderer/src/lib/policies.svelte.js';
import { CompressionState } from '../../renderer/src/lib/compression.svelte.js';
import { FakeBackend } from './fake-backend.js';

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** Stops `stop` (a state's start() result) after the current test. */
export function stopAfterTest(stop: () => void): void {
  stops.push(stop);
}

/** The Servers view, once its list has loaded; with `browse`, its Browse tab can be opened. */
async function serversView(fake: FakeBackend, browse?: BrowseState): Promise<ServersState> {
  const servers = new ServersState(fake);
  stops.push(servers.start());
  render(ServersView, { servers, browse });
  await waitFor(() => expect(servers.loaded).toBe(true));
  return servers;
}

/** The Servers view, once its list has loaded. */
export async function renderServers(seed?: (fake: FakeBackend) => void): Promise<{ fake: FakeBackend; servers: ServersState }> {
  const fake = new FakeBackend();
  seed?.(fake);
  return { fake, servers: await serversView(fake) };
}

/** The Servers view on its Browse tab, once the registry's first page is listed. */
export async function renderBrowse(
  seed?: (fake: FakeBackend) => void,
): Promise<{ fake: FakeBackend; servers: ServersState; browse: BrowseState; list: HTMLElement }> {
  const fake = new FakeBackend();
  seed?.(fake);
  const browse = new BrowseState(fake);
  const servers = await serversView(fake, browse);
  await fireEvent.click(screen.getByRole('tab', { name: 'Browse' }));
  const list = await screen.findByRole('list', { name: 'Servers in the registry' });
  return { fake, servers, browse, list };
}

/** The Settings view (with the Compression section when asked); wait for a field of it before use. */
export function renderSettings(seed?: (fake: FakeBackend) => void, options: { compression?: boolean } = {}): FakeBackend {
  const fake = new FakeBackend();
  seed?.(fake);
  const settings = new SettingsState(fake);
  const storage = new SpillStorageState(fake);
  const policies = new PoliciesState(fake);
  stops.push(settings.start(), storage.start(), policies.start());
  render(SettingsView, { settings, storage, policies, ...(options.compression ? { compression: new CompressionState(fake) } : {}) });
  return fake;
}

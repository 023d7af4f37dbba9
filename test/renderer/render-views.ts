/**
 * The Servers and Settings views rendered against a fake backend, their states started, and stopped
 * again after each test (this module registers the afterEach).
 */
import { afterEach, expect } from 'vitest';
import { render, waitFor } from '@testing-library/svelte';
import ServersView from '../../renderer/src/views/ServersView.svelte';
import SettingsView from '../../renderer/src/views/SettingsView.svelte';
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

/** The Servers view, once its list has loaded. */
export async function renderServers(seed?: (fake: FakeBackend) => void): Promise<{ fake: FakeBackend; servers: ServersState }> {
  const fake = new FakeBackend();
  seed?.(fake);
  const servers = new ServersState(fake);
  stops.push(servers.start());
  render(ServersView, { servers });
  await waitFor(() => expect(servers.loaded).toBe(true));
  return { fake, servers };
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

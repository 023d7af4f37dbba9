/**
 * Hub runs in-process (nothing on the network, real stdio upstreams) on one temp data folder, for tests
 * where a later run starts from what an earlier one kept. Clients connect over the SDK's in-memory pair.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { vi } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { Hub, type HubOptions } from '../../electron/core/hub.js';
import { testPaths } from './hub-harness.js';

export class HubRuns {
  private readonly hubs: Hub[] = [];
  private readonly clients: Client[] = [];

  private constructor(readonly dir: string) {}

  /** A fresh data folder under the system temp folder, named with `prefix`. */
  static async open(prefix: string): Promise<HubRuns> {
    return new HubRuns(await mkdtemp(join(tmpdir(), prefix)));
  }

  /** Writes `config` as the folder's config.json and starts a hub on it. */
  async start(config: unknown, options: Partial<HubOptions> = {}): Promise<Hub> {
    const paths = testPaths(this.dir);
    await writeFile(paths.configFile, JSON.stringify(config));
    const hub = await Hub.create({ paths, version: '0.0.0-test', platform: process.platform, env: process.env, listen: false, ...options });
    this.hubs.push(hub);
    await hub.start();
    return hub;
  }

  /** Ends a run before the next one starts on the same folder. */
  async stop(hub: Hub): Promise<void> {
    this.hubs.splice(this.hubs.indexOf(hub), 1);
    await hub.stop();
  }

  /** Connects `client` (set up beforehand, e.g. with notification handlers) as a stdio client would. */
  async connect(hub: Hub, client: Client = new Client({ name: 'hub-runs-test', version: '1.0.0' })): Promise<Client> {
    const [clientSide, hubSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([hub.connectSession(hubSide, 'stdio'), client.connect(clientSide)]);
    this.clients.push(client);
    return client;
  }

  /** Closes the clients, stops the hubs still running and removes the folder. */
  async close(): Promise<void> {
    await Promise.all(this.clients.splice(0).map((c) => c.close().catch(() => undefined)));
    for (const hub of this.hubs.splice(0)) await hub.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Resolves on the hub's first event that matches (subscribe before whatever causes it). */
export const hubEvent = (hub: Hub, match: (e: HubEvent) => boolean) =>
  new Promise<HubEvent>((resolve) => {
    const off = hub.events.subscribe((e) => {
      if (!match(e)) return;
      off();
      resolve(e);
    });
  });

/** Resolves when `server` next reports `state`. */
export const upstreamStatus = (hub: Hub, server: string, state: string) =>
  hubEvent(hub, (e) => e.type === 'upstream.status' && e.server === server && e.status === state);

/** Resolves at once if `server` is ready, else when it reports ready. */
export const upstreamReady = async (hub: Hub, server: string): Promise<void> => {
  if (hub.pool.get(server)?.status !== 'ready') await upstreamStatus(hub, server, 'ready');
};

/**
 * Resolves once `server`'s process has printed `text` on stderr: its own stderr tail (unmasked, unlike the
 * events) is looked at again at each stderr line the hub hears from it.
 */
export const stderrPrinted = (hub: Hub, server: string, text: string): Promise<void> => {
  const printed = () => hub.pool.get(server)?.stderrTail().join('\n').includes(text) === true;
  if (printed()) return Promise.resolve();
  return hubEvent(hub, (e) => e.type === 'upstream.stderr' && e.server === server && printed()).then(() => undefined);
};

/**
 * Resolves once the catalog shows what `holds` looks for: at once, or after the rebuild that makes it so.
 * A rebuild that changes nothing clients see (a hidden tool's new definition) comes with no event, so
 * this hears of each rebuild from the catalog itself.
 */
export function catalogShows(hub: Hub, holds: () => boolean): Promise<void> {
  if (holds()) return Promise.resolve();
  return new Promise((resolve) => {
    const rebuild = hub.catalog.rebuild.bind(hub.catalog);
    const spy = vi.spyOn(hub.catalog, 'rebuild').mockImplementation((sources, options) => {
      const changed = rebuild(sources, options);
      if (holds()) {
        spy.mockRestore();
        resolve();
      }
      return changed;
    });
  });
}

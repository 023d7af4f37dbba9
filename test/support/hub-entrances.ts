/**
 * A hub serving the fixture server as `fx` through both of its entrances: the bridge socket (attached as
 * the app attaches it) and the HTTP endpoint, with a raw session open on each, for tests that send the
 * exact bytes they mean to (messages too long or too deep for JSON.stringify).
 */
import { attachSocketEndpoint, socketPathFor } from '../../electron/core/downstream/socket-endpoint.js';
import { hubProof } from '../../electron/core/files/hub-identity.js';
import { fixture, nodeServer, startTestHub, type TestHub } from './hub-harness.js';
import { RawHttpSession } from './raw-http-session.js';
import { RawSocketSession } from './raw-socket-session.js';

export interface HubEntrances {
  hub: TestHub;
  /** The bridge socket's path, for more sessions. */
  socketPath: string;
  /** A session over the bridge socket, named `<name>-socket`. */
  socket: RawSocketSession;
  /** A session over HTTP, named `<name>-http`. */
  http: RawHttpSession;
  /** Closes the sessions, the socket and the hub. */
  close(): Promise<void>;
}

/** Starts the hub with `fx` ready and both entrances open; `name` names its sessions (and the hub in its socket proof). */
export async function openHubEntrances(name: string): Promise<HubEntrances> {
  const hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
  const endpoint = await attachSocketEndpoint(hub.hub, {
    path: socketPathFor({ dataDir: hub.dir, platform: process.platform }),
    platform: process.platform,
    proveIdentity: (nonce) => hubProof(`${name}-hub`, nonce, 'socket'),
  });
  await hub.waitForStatus('fx', 'ready');
  const socket = await RawSocketSession.open(endpoint.path, hub.token, `${name}-socket`);
  const http = await RawHttpSession.open(hub.url, hub.token, `${name}-http`);
  return {
    hub,
    socketPath: endpoint.path,
    socket,
    http,
    async close() {
      socket.close();
      await endpoint.close();
      await hub.stop();
    },
  };
}

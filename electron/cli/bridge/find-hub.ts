import { newNonce, provesHub } from '../../core/files/hub-identity.js';
import { httpHubAt, httpLink } from './http-link.js';
import type { HubLink, HubLinkEvents } from './hub-link.js';
import { openSocket, socketLink } from './socket-link.js';

export interface FindHubOptions {
  socketPath: string;
  client?: string;
  /** The hub token (read before each try). */
  token: () => Promise<string | undefined>;
  /** The id this folder's hub must prove (see BridgeOptions.hubId); absent, nothing is checked. */
  hubId?: () => Promise<string | undefined>;
  httpUrls?: () => Promise<string[]>;
  events: HubLinkEvents;
  /** Where another Spillway answered already (each is said once). */
  notOurs: Set<string>;
}

/**
 * The data folder's own hub: on the socket if it answers there, else over HTTP; undefined if neither
 * (issue 13, item 2). Throws when that hub refuses the token.
 */
export async function findHub(o: FindHubOptions): Promise<HubLink | undefined> {
  const token = await o.token();
  if (!token) return undefined; // no token file yet: the hub has never run here
  const id = await o.hubId?.();
  const nonce = newNonce();
  const socket = await openSocket(o.socketPath, token, o.client, nonce);
  if (socket) {
    // The socket lives in the data folder: a hub there that gives no proof is this folder's (an older one).
    if (socket.proof === undefined || (id !== undefined && provesHub(id, nonce, 'socket', socket.proof)))
      return socketLink(socket.socket, socket.rest, o.events);
    socket.socket.destroy();
    notOurs(o, o.socketPath);
  }
  for (const url of (await o.httpUrls?.()) ?? []) {
    // Another Spillway (another data folder) may hold the port: it never sees this folder's token.
    if (o.hubId) {
      const who = id === undefined ? 'nothing' : await httpHubAt(url, id);
      if (who === 'other') notOurs(o, url);
      if (who !== 'ours') continue;
    }
    const link = await httpLink(url, token, o.events);
    if (link) return link;
  }
  return undefined;
}

function notOurs(o: FindHubOptions, where: string): void {
  if (o.notOurs.has(where)) return;
  o.notOurs.add(where);
  o.events.log(`spillway bridge: what answers at ${where} is not this data folder's Spillway; not using it`);
}

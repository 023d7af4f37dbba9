import { httpHubAt } from '../../core/files/hub-identity.js';
import { httpLink } from './http-link.js';
import type { HubLink, HubLinkEvents } from './hub-link.js';
import { openSocket, socketLink } from './socket-link.js';

export interface FindHubOptions {
  socketPath: string;
  client?: string;
  /** The hub token (read before each try). */
  token: () => Promise<string | undefined>;
  /** The id this folder's hub must prove (see BridgeOptions.hubId); undefined before any hub ran there. */
  hubId: () => Promise<string | undefined>;
  httpUrls?: () => Promise<string[]>;
  events: HubLinkEvents;
  /** Where another Spillway answered already (each is said once). */
  notOurs: Set<string>;
}

/**
 * The data folder's own hub: on the socket if it answers there, else over HTTP; undefined if neither
 * (issue 13, item 2). Throws TokenRefused when that hub refuses the token.
 */
export async function findHub(o: FindHubOptions): Promise<HubLink | undefined> {
  const token = await o.token();
  if (!token) return undefined; // no token file yet: the hub has never run here
  // No id yet: no hub has run in this folder, so nothing that answers can prove itself (none is ours).
  const id = await o.hubId();
  if (id === undefined) return undefined;
  const socket = await openSocket(o.socketPath, { token, hubId: id, client: o.client });
  if (socket === 'not-ours') notOurs(o, o.socketPath);
  else if (socket) return socketLink(socket.socket, socket.rest, o.events);
  for (const url of (await o.httpUrls?.()) ?? []) {
    // Another Spillway (another data folder) may hold the port: it never sees this folder's token.
    const who = await httpHubAt(url, id);
    if (who === 'other') notOurs(o, url);
    if (who !== 'ours') continue;
    const link = await httpLink(url, token, o.events);
    if (link) return link;
  }
  return undefined;
}

function notOurs(o: FindHubOptions, where: string): void {
  if (o.notOurs.has(where)) return;
  o.notOurs.add(where);
  o.events.log(
    `spillway bridge: what answers at ${where} is not this data folder's Spillway (it could not prove it); not using it, and not sending it the token`,
  );
}

import { createConnection, type Socket } from 'node:net';
import { CLIENT_PIPE_MAX_BYTES } from '../../../shared/limits.js';
import { LineFramer, oversizedResponseId } from '../../core/wire/line-framer.js';
import type { HubLink, HubLinkEvents } from './hub-link.js';

/** An authenticated socket; `proof` is the hub's answer to the nonce, when it gave one (see files/hub-identity.ts). */
export interface OpenSocket {
  socket: Socket;
  rest: Buffer;
  proof?: string;
}

/**
 * Connects and authenticates, asking the hub to prove whose it is (`nonce`); undefined when nothing
 * answers. Throws when the hub refuses the token.
 */
export function openSocket(path: string, token: string, client = 'spillway-bridge', nonce?: string): Promise<OpenSocket | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let head = Buffer.alloc(0);
    socket.once('error', () => resolve(undefined));
    socket.once('close', () => resolve(undefined));
    socket.once('connect', () => socket.write(`${JSON.stringify({ token, client, ...(nonce ? { nonce } : {}) })}\n`));
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const nl = head.indexOf(0x0a);
      if (nl === -1) return;
      socket.off('data', onData);
      socket.pause();
      let answer: { ok?: boolean; error?: string; hub?: unknown } | undefined;
      try {
        answer = JSON.parse(head.subarray(0, nl).toString('utf8')) as typeof answer;
      } catch {
        /* not a Spillway hub */
      }
      if (answer?.ok) return resolve({ socket, rest: head.subarray(nl + 1), ...(typeof answer.hub === 'string' ? { proof: answer.hub } : {}) });
      socket.destroy();
      reject(new Error(`the hub refused the bridge: ${answer?.error ?? 'unexpected answer'}`));
    };
    socket.on('data', onData);
  });
}

/**
 * The link over the hub's socket (close to a byte pipe): hub lines go to the bridge as the bytes they
 * came as; a line over the client pipe limit is skipped, reported with the id of the response it was.
 * `rest` is what arrived with the handshake's answer.
 */
export function socketLink(socket: Socket, rest: Buffer, events: HubLinkEvents): HubLink {
  const fromHub = new LineFramer({
    maxMessageBytes: CLIENT_PIPE_MAX_BYTES,
    onLine: (raw) => events.line(raw),
    onError: (error) => events.oversized(error.bytes, oversizedResponseId(error)),
  });
  const link: HubLink = {
    kind: 'socket',
    send: (raw) => socket.write(raw),
    onDrain: (fn) => socket.once('drain', fn),
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    close: () => socket.destroy(),
  };
  socket.on('data', (chunk: Buffer) => fromHub.push(chunk));
  socket.on('error', () => undefined);
  socket.once('close', () => {
    fromHub.reset();
    events.lost(link);
  });
  if (rest.length > 0) queueMicrotask(() => fromHub.push(rest));
  socket.resume();
  return link;
}

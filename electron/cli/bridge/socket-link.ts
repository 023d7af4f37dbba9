import { createConnection, type Socket } from 'node:net';
import { CLIENT_PIPE_MAX_BYTES } from '../../../shared/limits.js';
import { newNonce, provesHub } from '../../core/files/hub-identity.js';
import { LineFramer, oversizedResponseId } from '../../core/wire/line-framer.js';
import { TokenRefused, type HubLink, type HubLinkEvents } from './hub-link.js';

/** How long a hub has to answer the whole handshake: one that accepts and then says nothing counts as none. */
export const SOCKET_HANDSHAKE_MS = 2000;
/** More than a handshake line needs: what sends more without a newline is not a Spillway hub. */
const HANDSHAKE_MAX_BYTES = 64 * 1024;

/** An authenticated socket, and what arrived behind the hub's last handshake line. */
export interface OpenSocket {
  socket: Socket;
  rest: Buffer;
}

export interface OpenSocketOptions {
  token: string;
  /** The id of this data folder's hub (files/hub-identity.ts): the hub must prove it before the token is sent. */
  hubId: string;
  client?: string;
  /** Default SOCKET_HANDSHAKE_MS. */
  timeoutMs?: number;
}

/**
 * Connects and runs the handshake (see core/downstream/socket-endpoint.ts): the hub first proves it is
 * this data folder's by answering a fresh nonce, and only then is the token sent. Resolves undefined when
 * nothing answers (no socket, or no answer within the time limit), 'not-ours' when what answers gives no
 * valid proof (it never sees the token); throws TokenRefused when the hub refuses the token.
 */
export function openSocket(path: string, o: OpenSocketOptions): Promise<OpenSocket | 'not-ours' | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    const nonce = newNonce();
    let head = Buffer.alloc(0);
    let proven = false;
    let settled = false;
    const settle = (fn: () => void, keep = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Paused before the listener goes, so nothing the hub sends next is lost before socketLink reads it.
      socket.pause();
      socket.off('data', onData);
      if (!keep) socket.destroy();
      fn();
    };
    const timer = setTimeout(() => settle(() => resolve(undefined)), o.timeoutMs ?? SOCKET_HANDSHAKE_MS);
    socket.once('error', () => settle(() => resolve(undefined)));
    socket.once('close', () => settle(() => resolve(undefined)));
    socket.once('connect', () => socket.write(`${JSON.stringify({ nonce, client: o.client ?? 'spillway-bridge' })}\n`));
    const onLine = (line: string) => {
      let answer: { ok?: unknown; error?: unknown; hub?: unknown } | undefined;
      try {
        answer = JSON.parse(line) as typeof answer;
      } catch {
        /* not a Spillway hub: no proof below */
      }
      if (!proven) {
        if (!provesHub(o.hubId, nonce, 'socket', answer?.hub)) return settle(() => resolve('not-ours'));
        proven = true;
        socket.write(`${JSON.stringify({ token: o.token })}\n`);
        return;
      }
      if (answer?.ok === true) return settle(() => resolve({ socket, rest: head }), true);
      const why = typeof answer?.error === 'string' ? answer.error : 'unexpected answer';
      settle(() => reject(new TokenRefused(path, why)));
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      for (let nl = head.indexOf(0x0a); nl !== -1 && !settled; nl = head.indexOf(0x0a)) {
        const line = head.subarray(0, nl).toString('utf8');
        head = head.subarray(nl + 1);
        onLine(line);
      }
      if (!settled && head.length > HANDSHAKE_MAX_BYTES) settle(() => resolve('not-ours'));
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
    onLine: (raw) => events.line(link, raw),
    onError: (error) => events.oversized(link, error.bytes, oversizedResponseId(error)),
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

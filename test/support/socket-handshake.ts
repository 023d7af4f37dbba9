/** The hub's side of the bridge socket's handshake, for scripted socket hubs in tests (see core/downstream/socket-endpoint.ts). */
import type { Socket } from 'node:net';
import { hubProof } from '../../electron/core/files/hub-identity.js';
import { LineFramer } from '../../electron/core/wire/line-framer.js';

export interface ScriptedHandshake {
  /** The id whose proof the hub gives. */
  id: string;
  /** Each line after the handshake (the bridge's messages). */
  onMessage(raw: Buffer): void;
  /** What the hub saw in the handshake, in order (the hello, then the token line). */
  saw?: string[];
}

/** Proves `id` for the bridge's nonce, accepts any token, then hands every later line to `onMessage`. */
export function scriptedHandshake(socket: Socket, o: ScriptedHandshake): void {
  let step = 0;
  const framer = new LineFramer({
    onLine: (raw) => {
      if (step >= 2) return o.onMessage(raw);
      const text = raw.toString('utf8');
      o.saw?.push(text);
      const m = JSON.parse(text) as { nonce?: string };
      socket.write(`${JSON.stringify(step === 0 ? { hub: hubProof(o.id, m.nonce ?? '', 'socket') } : { ok: true })}\n`);
      step++;
    },
  });
  socket.on('data', (chunk: Buffer) => framer.push(chunk));
  socket.on('error', () => undefined);
}

/**
 * One MCP session spoken as raw lines over the hub's bridge socket (core/downstream/socket-endpoint.ts),
 * so a test can send exactly the bytes it means to (lines too long or too deep for JSON.stringify).
 */
import { createConnection, type Socket } from 'node:net';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { newNonce } from '../../electron/core/files/hub-identity.js';

/** A message the hub sent: read by path in the assertions. */
export interface HubLine {
  id?: unknown;
  /** Set on a request or notification the hub sends (a server's sampling/createMessage it relays). */
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export class RawSocketSession {
  readonly #socket: Socket;
  readonly #lines: HubLine[] = [];
  #waiters: (() => void)[] = [];

  private constructor(socket: Socket) {
    this.#socket = socket;
  }

  /**
   * Connects to `path`, gives `token` (the hub's proof is not checked), and initializes as `client`,
   * declaring `capabilities`.
   */
  static async open(path: string, token: string, client = 'raw-socket', capabilities: Record<string, unknown> = {}): Promise<RawSocketSession> {
    const socket = createConnection(path);
    socket.on('error', () => undefined);
    const session = new RawSocketSession(socket);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        session.#lines.push(JSON.parse(buffer.slice(0, nl)) as HubLine);
        buffer = buffer.slice(nl + 1);
        for (const wake of session.#waiters.splice(0)) wake();
      }
    });
    socket.once('close', () => {
      for (const wake of session.#waiters.splice(0)) wake();
    });
    socket.write(`${JSON.stringify({ nonce: newNonce(), client })}\n`);
    await session.next((line) => 'hub' in line);
    socket.write(`${JSON.stringify({ token })}\n`);
    const ok = await session.next((line) => 'ok' in line);
    if ((ok as { ok?: unknown }).ok !== true) throw new Error(`the hub refused the token: ${JSON.stringify(ok)}`);
    const params = { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities, clientInfo: { name: client, version: '1' } };
    await session.request({ id: 'init', method: 'initialize', params });
    session.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return session;
  }

  /** Writes one line (the newline is added). */
  send(line: string): void {
    this.#socket.write(`${line}\n`);
  }

  /** The hub's answer to request `id`. */
  answer(id: string | number): Promise<HubLine> {
    return this.next((line) => line.id === id && ('result' in line || 'error' in line));
  }

  /** Sends a request made of plain JSON and waits for its answer. */
  request(message: { id: string | number; method: string; params?: unknown }): Promise<HubLine> {
    this.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
    return this.answer(message.id);
  }

  close(): void {
    this.#socket.destroy();
  }

  /** The first message from the hub not taken yet that matches (waiting for each one it sends until one does); taken. */
  async next(match: (line: HubLine) => boolean): Promise<HubLine> {
    for (;;) {
      const at = this.#lines.findIndex(match);
      if (at !== -1) return this.#lines.splice(at, 1)[0];
      if (this.#socket.closed) throw new Error('the hub closed the connection');
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }
}

/**
 * A small OpenAI-compatible chat-completions server for tests: the real wire protocol,
 * non-streaming (`stream: false`, a chat.completion object) and streaming (`stream: true`, SSE
 * `chat.completion.chunk` lines then `data: [DONE]`). Behaviour per request is chosen by `mode`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Mode =
  | { kind: 'answer'; content: (user: string, system: string) => string; finishReason?: string }
  | { kind: 'flood'; chunkBytes: number } // 200 OK, chunked body that never ends (as fast as the socket takes it)
  | { kind: 'status'; status: number; body: (req: Recorded) => string }
  | { kind: 'hang' };

export interface Recorded {
  headers: Record<string, string | string[] | undefined>;
  body: { model: string; stream?: boolean; max_tokens: number; messages: Array<{ role: string; content: string }> };
}

export interface FakeOpenAI {
  baseUrl: string;
  requests: Recorded[];
  mode: Mode;
  bytesSent: number;
  close(): Promise<void>;
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFakeOpenAI(mode: Mode): Promise<FakeOpenAI> {
  const open = new Set<ServerResponse>();
  const state: FakeOpenAI = { baseUrl: '', requests: [], mode, bytesSent: 0, close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(await read(req)) as Recorded['body'];
    const rec: Recorded = { headers: req.headers, body };
    state.requests.push(rec);
    const m = state.mode;
    if (m.kind === 'hang') {
      open.add(res);
      return;
    }
    if (m.kind === 'status') {
      const text = m.body(rec);
      res.writeHead(m.status, { 'content-type': 'application/json' }).end(text);
      return;
    }
    if (m.kind === 'flood') {
      open.add(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(m.chunkBytes, 'a');
      res.write('{"choices":[{"message":{"role":"assistant","content":"');
      const pump = () => {
        while (!res.destroyed) {
          state.bytesSent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
      };
      res.on('close', () => open.delete(res));
      pump();
      return;
    }
    const system = body.messages
      .filter((x) => x.role === 'system')
      .map((x) => x.content)
      .join('\n');
    const user = body.messages
      .filter((x) => x.role === 'user')
      .map((x) => x.content)
      .join('\n');
    const content = m.content(user, system);
    const finish = m.finishReason ?? 'stop';
    const usage = { prompt_tokens: Math.ceil((system.length + user.length) / 4), completion_tokens: Math.ceil(content.length / 4) };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body.model };
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`);
      for (let i = 0; i < content.length; i += 64)
        res.write(
          `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: content.slice(i, i + 64) }, finish_reason: null }] })}\n\n`,
        );
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finish }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = async () => {
    for (const r of open) r.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return state;
}

import { CLIENT_PIPE_MAX_BYTES } from '../../../shared/limits.js';
import { TokenRefused, type HubLink, type HubLinkEvents, type Undelivered } from './hub-link.js';
import { isResponse, jsonLine, type Peek } from './messages.js';

/** Whether a hub answers at `url`; throws TokenRefused when it answers but refuses the token. */
export async function httpAnswers(url: string, token: string): Promise<boolean> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'GET', headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(1500) });
  } catch {
    return false;
  }
  await res.body?.cancel();
  if (res.status === 401 || res.status === 403) throw new TokenRefused(url, `wrong token (HTTP ${res.status})`);
  return true;
}

/**
 * The link over the hub's Streamable HTTP endpoint, when no socket answers: one SDK client transport,
 * messages sent parsed and received as lines. Undefined when nothing answers at `url`.
 */
export async function httpLink(url: string, token: string, events: HubLinkEvents): Promise<HubLink | undefined> {
  if (!(await httpAnswers(url, token))) return undefined;
  const { StreamableHTTPClientTransport, StreamableHTTPError } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  // The header tells the hub this HTTP session feeds a stdio client (so it can spill what a pipe cannot take).
  const headers = { authorization: `Bearer ${token}`, 'x-spillway-bridge': '1' };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  /** What a failed POST tells about whether the hub received the message (see Undelivered). */
  const fate = (err: unknown): Undelivered => {
    if (err instanceof StreamableHTTPError) return err.code === 404 ? 'not-sent' : 'refused';
    // fetch() says "fetch failed" either way; only its cause tells a refused connection from a broken one.
    return (err as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED' ? 'not-sent' : 'maybe-run';
  };
  const link: HubLink = {
    kind: 'http',
    send: (raw, m) => {
      if (!m) return true;
      transport.send(m as Parameters<typeof transport.send>[0]).catch((err: Error) => events.unsent(link, raw, m, err, fate(err)));
      return true;
    },
    onDrain: (fn) => fn(),
    pause: () => undefined,
    resume: () => undefined,
    close: () => void transport.close().catch(() => undefined),
    setProtocolVersion: (v) => transport.setProtocolVersion(v),
  };
  transport.onmessage = (m) => {
    const raw = jsonLine(m);
    const message = m as Peek;
    if (raw.length > CLIENT_PIPE_MAX_BYTES + 1) events.oversized(link, raw.length - 1, isResponse(message) ? message.id : undefined);
    else events.line(link, raw, message);
  };
  transport.onerror = (err) => {
    events.log(`spillway bridge: ${err.message}`);
    // A stream broke: the hub is lost unless it still knows this session (a hub restarted on the same port
    // answers, but not for the old session, and the calls that were under way there will never be answered).
    void sessionLives(url, headers, transport.sessionId).then((ok) => ok || events.lost(link));
  };
  await transport.start();
  return link;
}

/** Whether the hub at `url` still serves session `id`: a ping on it (answered on that request alone). */
async function sessionLives(url: string, headers: Record<string, string>, id: string | undefined): Promise<boolean> {
  if (id === undefined) return httpAnswers(url, headers.authorization.slice('Bearer '.length)).catch(() => false);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': id, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'spillway-bridge-probe', method: 'ping' }),
      signal: AbortSignal.timeout(1500),
    });
    await res.text();
    return res.ok;
  } catch {
    return false;
  }
}

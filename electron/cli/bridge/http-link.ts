import { CLIENT_PIPE_MAX_BYTES } from '../../../shared/limits.js';
import { HUB_IDENTITY_PATH, newNonce, provesHub } from '../../core/files/hub-identity.js';
import type { HubLink, HubLinkEvents } from './hub-link.js';
import { isResponse, jsonLine, type Peek } from './messages.js';

/**
 * Whose hub answers at `url`: the one whose id this is, another (another data folder's Spillway, or not
 * Spillway at all), or nothing (issue 13, item 2). Asked before the token is sent: another Spillway on the
 * same port never sees this folder's token.
 */
export async function httpHubAt(url: string, id: string): Promise<'ours' | 'other' | 'nothing'> {
  const nonce = newNonce();
  let res: Response;
  try {
    res = await fetch(`${new URL(url).origin}${HUB_IDENTITY_PATH}?nonce=${nonce}`, { signal: AbortSignal.timeout(1500) });
  } catch {
    return 'nothing';
  }
  const answer = (await res.json().catch(() => undefined)) as { proof?: unknown } | undefined;
  return provesHub(id, nonce, { port: Number(new URL(url).port || 80) }, answer?.proof) ? 'ours' : 'other';
}

/** Whether a hub answers at `url`; throws when it answers but refuses the token. */
export async function httpAnswers(url: string, token: string): Promise<boolean> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'GET', headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(1500) });
  } catch {
    return false;
  }
  await res.body?.cancel();
  if (res.status === 401 || res.status === 403) throw new Error(`the hub at ${url} refused the token (HTTP ${res.status})`);
  return true;
}

/**
 * The link over the hub's Streamable HTTP endpoint, when no socket answers: one SDK client transport,
 * messages sent parsed and received as lines. Undefined when nothing answers at `url`.
 */
export async function httpLink(url: string, token: string, events: HubLinkEvents): Promise<HubLink | undefined> {
  if (!(await httpAnswers(url, token))) return undefined;
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  // The header tells the hub this HTTP session feeds a stdio client (so it can spill what a pipe cannot take).
  const headers = { authorization: `Bearer ${token}`, 'x-spillway-bridge': '1' };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const link: HubLink = {
    kind: 'http',
    send: (raw, m) => {
      if (!m) return true;
      transport.send(m as Parameters<typeof transport.send>[0]).catch((err: Error) => events.unsent(link, raw, m, err));
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
    if (raw.length > CLIENT_PIPE_MAX_BYTES + 1) events.oversized(raw.length - 1, isResponse(message) ? message.id : undefined);
    else events.line(raw, message);
  };
  transport.onerror = (err) => {
    events.log(`spillway bridge: ${err.message}`);
    void httpAnswers(url, token).then(
      (ok) => ok || events.lost(link),
      () => events.lost(link),
    );
  };
  await transport.start();
  return link;
}

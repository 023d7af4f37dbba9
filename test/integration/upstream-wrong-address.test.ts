/**
 * An HTTP or SSE server entered with a wrong address, path or type: the status says which, in words
 * that point at the fix (audit s13), instead of quoting a whole HTML page or calling every failed fetch
 * "connection refused".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING, NODE, fixture, freePort } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';
import { upstreamRun } from '../support/upstream-run.js';

const stops: (() => Promise<void>)[] = [];
let http: Started; // server-everything over Streamable HTTP, at /mcp
let sse: Started; // server-everything over legacy SSE, at /sse
let httpPort: number;
let ssePort: number;

beforeAll(async () => {
  [httpPort, ssePort] = [await freePort(), await freePort()];
  http = await spawnUntil(NODE, [EVERYTHING, 'streamableHttp'], /listening on port/, { env: { ...process.env, PORT: String(httpPort) } });
  stops.push(() => http.stop());
  sse = await spawnUntil(NODE, [EVERYTHING, 'sse'], /running on port/, { env: { ...process.env, PORT: String(ssePort) } });
  stops.push(() => sse.stop());
});
afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
});

/** The status after one connect to `config`. */
async function connectError(config: { type: 'http' | 'sse'; url: string }): Promise<string> {
  const t = upstreamRun(config, { connectTimeoutMs: 5000 });
  stops.push(() => t.up.stop());
  await t.up.connectOnce();
  expect(t.up.status).toBe('error');
  return t.up.error!;
}

async function htmlServer(status: number): Promise<string> {
  const web = await spawnUntil(NODE, [fixture('html-page-server.mjs'), String(status)], /listening on (\S+)/);
  stops.push(() => web.stop());
  return web.match[1];
}

describe('an HTTP server at a wrong address', () => {
  it('that answers an HTML 404 page: the status, a short quote of the page, and what to check', async () => {
    const url = await htmlServer(404);
    const error = await connectError({ type: 'http', url });
    expect(error).toMatch(
      new RegExp(
        `^HTTP 404 from ${url}: not an MCP endpoint; check the path \\(often /mcp\\) and the type \\(HTTP or SSE\\) \\(it answered: "Not Found The requested URL was not found on this server`,
      ),
    );
    expect(error).not.toMatch(/<|DOCTYPE|font-family/);
    expect(error.length).toBeLessThan(400);
  });

  it('that answers with a web page (200, text/html): not an MCP endpoint', async () => {
    const url = await htmlServer(200);
    expect(await connectError({ type: 'http', url })).toBe(
      `${url} is not an MCP endpoint (it answered with text/html); check the path (often /mcp) and the type (HTTP or SSE)`,
    );
  });

  it('a mistyped path of a real server', async () => {
    const error = await connectError({ type: 'http', url: `http://127.0.0.1:${httpPort}/mpc` });
    expect(error).toMatch(/^HTTP 404 from \S+\/mpc: not an MCP endpoint; check the path \(often \/mcp\)/);
    expect(error).not.toMatch(/<|DOCTYPE/);
  });

  it('an SSE server entered as HTTP', async () => {
    const error = await connectError({ type: 'http', url: `http://127.0.0.1:${ssePort}/sse` });
    expect(error).toMatch(/^HTTP \d+ from \S+\/sse: not an MCP endpoint; check the path \(often \/mcp\) and the type \(HTTP or SSE\)/);
    expect(error).not.toMatch(/<|DOCTYPE/);
  });

  it('an HTTP server entered as SSE', async () => {
    const error = await connectError({ type: 'sse', url: `http://127.0.0.1:${httpPort}/mcp` });
    expect(error).toMatch(/^HTTP 4\d\d from \S+\/mcp: not an MCP SSE endpoint; check the path \(often \/sse\) and the type \(HTTP or SSE\)$/);
  });
});

describe('an address that cannot be fetched', () => {
  it('a host that does not exist: host not found, not "connection refused"', async () => {
    expect(await connectError({ type: 'http', url: 'http://no-such-host.invalid/mcp' })).toMatch(
      /^cannot find the host "no-such-host\.invalid" \((ENOTFOUND|EAI_AGAIN)\); check the address/,
    );
  });

  it('https to a plain HTTP server: the secure connection failed, check http versus https', async () => {
    const url = `https://127.0.0.1:${httpPort}/mcp`;
    expect(await connectError({ type: 'http', url })).toMatch(
      new RegExp(`^the secure connection to ${url} failed \\(\\w+\\); check http:// versus https:// in the address`),
    );
  });

  it('the same over SSE', async () => {
    expect(await connectError({ type: 'sse', url: 'http://no-such-host.invalid/sse' })).toMatch(/^cannot find the host "no-such-host\.invalid"/);
  });

  it('a port fetch refuses for safety (6000, X11): told plainly, with the next step, not "bad port"', async () => {
    // fetch refuses before it connects: nothing needs to listen there.
    for (const [type, url] of [
      ['http', 'http://127.0.0.1:6000/mcp'],
      ['sse', 'http://127.0.0.1:6000/sse'],
    ] as const) {
      expect(await connectError({ type, url })).toBe(
        `cannot reach ${url}: Node and web browsers refuse to connect to port 6000 for safety (it belongs to another kind of service); run the server on another port and change the address here`,
      );
    }
  });

  it('a port nothing listens on: connection refused', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    expect(await connectError({ type: 'http', url })).toBe(`cannot reach ${url} (connection refused): is the server running?`);
  });
});

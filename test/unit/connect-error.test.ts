/** How a failed connect reads (audit s13): network causes told apart, answers that are not MCP, a start's stderr. */
import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/config.js';
import { ConnectTimeoutError, describeConnectError, withServerOutput } from '../../electron/core/upstream/connect-error.js';
import { stderrSummary } from '../../electron/core/upstream/stderr-tail.js';

const URL_ = 'https://mcp.example.com/mcp';
const http = { type: 'http', url: URL_, headers: {}, enabled: true, prefix: true } as ServerConfig;
const sse = { type: 'sse', url: 'https://mcp.example.com/sse', headers: {}, enabled: true, prefix: true } as ServerConfig;
const stdio = { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true } as ServerConfig;

const fetchFailed = (code: string | undefined, message: string) =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(message), code ? { code } : {}) });
const httpError = (status: number, message: string) => Object.assign(new Error(`Streamable HTTP error: ${message}`), { code: status });

describe('describeConnectError', () => {
  it.each([
    ['refused', fetchFailed('ECONNREFUSED', 'connect ECONNREFUSED 1.2.3.4:443'), `cannot reach ${URL_} (connection refused): is the server running?`],
    [
      'unknown host',
      fetchFailed('ENOTFOUND', 'getaddrinfo ENOTFOUND mcp.example.com'),
      'cannot find the host "mcp.example.com" (ENOTFOUND); check the address',
    ],
    [
      'no DNS answer',
      fetchFailed('EAI_AGAIN', 'getaddrinfo EAI_AGAIN mcp.example.com'),
      'cannot find the host "mcp.example.com" (EAI_AGAIN); check the address',
    ],
    [
      'TLS to a plain port',
      fetchFailed('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number'),
      `the secure connection to ${URL_} failed (ERR_SSL_WRONG_VERSION_NUMBER); check http:// versus https:// in the address`,
    ],
    [
      'a self-signed certificate',
      fetchFailed('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
      `the secure connection to ${URL_} failed (DEPTH_ZERO_SELF_SIGNED_CERT); check http:// versus https:// in the address`,
    ],
    ['another cause', fetchFailed('UND_ERR_SOCKET', 'other side closed'), `cannot reach ${URL_}: other side closed`],
    [
      'a JSON-RPC error body',
      httpError(
        400,
        'Error POSTing to endpoint: {"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}',
      ),
      `HTTP 400 from ${URL_}: Bad Request: Server not initialized`,
    ],
    [
      'refused credentials',
      httpError(401, 'Error POSTing to endpoint: denied'),
      `${URL_} refused access (HTTP 401: "denied"); check the server's sign-in or its Authorization header`,
    ],
    [
      'a web page',
      httpError(
        404,
        'Error POSTing to endpoint: <html><head><title>x</title><script>var a=1;</script></head><body><h1>Not&nbsp;Found</h1></body></html>',
      ),
      `HTTP 404 from ${URL_}: not an MCP endpoint; check the path (often /mcp) and the type (HTTP or SSE) (it answered: "Not Found")`,
    ],
    [
      'an empty 404',
      httpError(404, 'Error POSTing to endpoint: '),
      `HTTP 404 from ${URL_}: not an MCP endpoint; check the path (often /mcp) and the type (HTTP or SSE)`,
    ],
    [
      'a 200 web page',
      httpError(-1, 'Unexpected content type: text/html; charset=utf-8'),
      `${URL_} is not an MCP endpoint (it answered with text/html); check the path (often /mcp) and the type (HTTP or SSE)`,
    ],
  ] as const)('HTTP: %s', (_, err, expected) => {
    expect(describeConnectError(err, http)).toBe(expected);
  });

  it('a port fetch refuses (6000, 5060, 10080…) is told as such, with the next step, not as "bad port"', () => {
    const blocked = (type: 'http' | 'sse', url: string) => ({ ...(type === 'http' ? http : sse), url }) as ServerConfig;
    const told =
      'cannot reach http://127.0.0.1:6000/mcp: Node and web browsers refuse to connect to port 6000 for safety (it belongs to another kind of service); run the server on another port and change the address here';
    // Streamable HTTP: undici's TypeError with the reason as its cause.
    expect(describeConnectError(fetchFailed(undefined, 'bad port'), blocked('http', 'http://127.0.0.1:6000/mcp'))).toBe(told);
    // SSE: the cause only as text.
    const sseTold = describeConnectError(new Error('SSE error: TypeError: fetch failed: bad port'), blocked('sse', 'http://127.0.0.1:5060/sse'));
    expect(sseTold).toBe(
      'cannot reach http://127.0.0.1:5060/sse: Node and web browsers refuse to connect to port 5060 for safety (it belongs to another kind of service); run the server on another port and change the address here',
    );
  });

  it('cuts a long page to a short quote', () => {
    const message = describeConnectError(httpError(500, `Error POSTing to endpoint: <p>${'word '.repeat(500)}</p>`), http);
    expect(message.length).toBeLessThan(300);
    expect(message).toMatch(/ \(it answered: "word word [a-z ]*…"\)$/);
  });

  it.each([
    [
      'a wrong status',
      new Error('SSE error: Non-200 status code (405)'),
      'HTTP 405 from https://mcp.example.com/sse: not an MCP SSE endpoint; check the path (often /sse) and the type (HTTP or SSE)',
    ],
    [
      'an unknown host',
      new Error('SSE error: TypeError: fetch failed: Error: getaddrinfo ENOTFOUND mcp.example.com'),
      'cannot find the host "mcp.example.com" (ENOTFOUND); check the address',
    ],
    [
      'no event stream',
      new Error('SSE error: Invalid content type, expected "text/event-stream"'),
      'https://mcp.example.com/sse is not an SSE endpoint (it answered without an event stream); check the path (often /sse) and the type (HTTP or SSE)',
    ],
    [
      'no endpoint event',
      new ConnectTimeoutError('start', 30_000),
      'no MCP endpoint event from https://mcp.example.com/sse within 30 s: is this the SSE URL? (It often ends in /sse; check the type too: HTTP or SSE.)',
    ],
  ] as const)('SSE: %s', (_, err, expected) => {
    expect(describeConnectError(err, sse)).toBe(expected);
  });

  it.each([
    ['start', 'the server did not start within 2 s'],
    ['initialize', 'the server did not finish starting within 2 s (it ran, but never answered Spillway)'],
    ['tools/list', 'the server started but did not send its list of tools within 2 s'],
    ['prompts/list', 'the server started but did not send its list of prompts within 2 s'],
  ] as const)('a stdio timeout at %s names it', (step, expected) => {
    expect(describeConnectError(new ConnectTimeoutError(step, 2000), stdio)).toBe(expected);
  });
});

describe('stderrSummary', () => {
  it("keeps a node crash's error line, not its stack or trailer", () => {
    const lines = [
      'node:internal/modules/cjs/loader:1210',
      '  throw err;',
      '  ^',
      '',
      "Error: Cannot find module '/srv/server.js'",
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)',
      '    at node:internal/main/run_main_module:28:49 {',
      "  code: 'MODULE_NOT_FOUND',",
      '  requireStack: []',
      '}',
      '',
      'Node.js v20.20.2',
    ];
    expect(stderrSummary(lines)).toEqual(["Error: Cannot find module '/srv/server.js'"]);
  });

  it("keeps Python's last line", () => {
    const lines = [
      'Traceback (most recent call last):',
      '  File "/srv/server.py", line 1, in <module>',
      '    import mcp',
      "ModuleNotFoundError: No module named 'mcp'",
    ];
    expect(stderrSummary(lines)).toEqual(["ModuleNotFoundError: No module named 'mcp'"]);
  });

  it('without an error line, the last three lines that say something', () => {
    expect(stderrSummary(['starting', 'reading config', '', 'config missing', 'bye'])).toEqual(['reading config', 'config missing', 'bye']);
  });
});

describe('withServerOutput', () => {
  it('a child that exited without output: its exit code and the next step', () => {
    expect(withServerOutput('Connection closed', [], { code: 1, signal: null }, true)).toBe(
      'the server exited at start (code 1) without output; run its command in a terminal to see why',
    );
  });

  it('a child killed by a signal after it was ready, with what it wrote', () => {
    expect(withServerOutput('the server closed the connection', ['out of memory'], { code: null, signal: 'SIGKILL' }, false)).toBe(
      'the server exited (signal SIGKILL) — stderr: out of memory',
    );
  });

  it('a timeout keeps its own words, with the stderr that says why', () => {
    expect(withServerOutput('the server did not start within 2 s', ['waiting for the database'], undefined, true)).toBe(
      'the server did not start within 2 s — stderr: waiting for the database',
    );
  });
});

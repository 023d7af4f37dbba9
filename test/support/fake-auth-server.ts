/**
 * A small in-process MCP resource + OAuth authorization server on 127.0.0.1 for the sign-in edge cases
 * (issue 15): one that never answers, redirects its revocation elsewhere, names plain-http endpoints, or
 * (once `authServer` is changed) says another authorization server now guards the resource. It records
 * every request, so a test can see what was posted where. Two of them on two ports are two origins.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAuthServerMode {
  /** The authorization server the resource metadata names (default: this server). */
  authServer?: string;
  /** Overrides the metadata's authorization_endpoint (e.g. a plain-http address off this computer). */
  authorizationEndpoint?: string;
  /** Overrides the metadata's token_endpoint. */
  tokenEndpoint?: string;
  /** Requests to these paths are never answered. */
  hang?: ('/.well-known/oauth-authorization-server' | '/token' | '/revoke')[];
  /** The revocation endpoint answers 307 to this address. */
  redirectRevokeTo?: string;
}

export interface SeenRequest {
  method: string;
  path: string;
  body: string;
  /** Its Authorization header, if any (client_secret_basic). */
  authorization?: string;
}

export interface FakeAuthServer {
  /** Its origin with a trailing slash, e.g. `http://127.0.0.1:5555/` (its issuer). */
  base: string;
  /** Its MCP endpoint (always answers 401). */
  mcpUrl: string;
  mode: FakeAuthServerMode;
  seen: SeenRequest[];
  /** Called once a request's body is read, before it is answered (or left hanging). */
  onRequest?: (req: SeenRequest) => void;
  stop(): Promise<void>;
}

export const FAKE_CLIENT_SECRET = 'client-secret-from-fake-as';

export async function startFakeAuthServer(mode: FakeAuthServerMode = {}): Promise<FakeAuthServer> {
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => void answer(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const fake: FakeAuthServer = {
    base,
    mcpUrl: `${base}mcp`,
    mode,
    seen: [],
    async stop() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const url = new URL(req.url ?? '/', base);
    const seen = {
      method: req.method ?? 'GET',
      path: url.pathname,
      body,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    };
    fake.seen.push(seen);
    fake.onRequest?.(seen);
    const json = (value: unknown, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (fake.mode.hang?.some((path) => url.pathname.startsWith(path))) {
      hanging.add(res);
      return;
    }
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource'))
      return json({ resource: fake.mcpUrl, authorization_servers: [fake.mode.authServer ?? base] });
    if (url.pathname.startsWith('/.well-known/oauth-authorization-server'))
      return json({
        issuer: base,
        authorization_endpoint: fake.mode.authorizationEndpoint ?? `${base}authorize`,
        token_endpoint: fake.mode.tokenEndpoint ?? `${base}token`,
        registration_endpoint: `${base}register`,
        revocation_endpoint: `${base}revoke`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      });
    if (url.pathname === '/register') return json({ ...JSON.parse(body), client_id: 'fake-client', client_secret: FAKE_CLIENT_SECRET }, 201);
    if (url.pathname === '/authorize') {
      const to = new URL(url.searchParams.get('redirect_uri')!);
      to.searchParams.set('code', 'fake-code');
      to.searchParams.set('state', url.searchParams.get('state')!);
      res.writeHead(302, { location: to.href });
      return void res.end();
    }
    if (url.pathname === '/token')
      return json({ access_token: `access-${base}`, token_type: 'bearer', refresh_token: `refresh-${base}`, expires_in: 3600 });
    if (url.pathname === '/revoke' && fake.mode.redirectRevokeTo) {
      res.writeHead(307, { location: fake.mode.redirectRevokeTo });
      return void res.end();
    }
    if (url.pathname === '/revoke') return json({});
    res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${base}.well-known/oauth-protected-resource/mcp"` });
    res.end();
  }
  return fake;
}

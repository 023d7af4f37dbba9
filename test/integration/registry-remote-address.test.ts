/**
 * A catalog remote at a plain http:// address on another computer is refused (its headers, a secret key
 * among them, and every tool call would cross the network unencrypted), through the control API of a
 * real in-process hub with a tiny local server playing the MCP Registry. The detail page says why; Add
 * refuses it and writes nothing; an address on this computer is fine, and one whose host is a variable
 * is checked once the form fills it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { callApi, startRegistryHub } from '../support/registry-hub.js';

const NS = 'io.github.spillway-remotes';
const SECRET_HEADER = [{ name: 'Authorization', description: 'Bearer token', isSecret: true, isRequired: true }];
const REMOTES: Record<string, Record<string, unknown>> = {
  'plain-http': { url: 'http://mcp.example.com/mcp', headers: SECRET_HEADER },
  'plain-http-ip': { url: 'http://192.168.1.20:8080/mcp' },
  'this-computer': { url: 'http://127.0.0.1:9/mcp', headers: SECRET_HEADER },
  'this-computer-v6': { url: 'http://[::1]:9/mcp' },
  'by-name': { url: 'http://localhost:9/mcp' },
  https: { url: 'https://mcp.example.com/mcp', headers: SECRET_HEADER },
  'host-variable': { url: 'http://{host}/mcp', variables: { host: { description: 'Host and port', isRequired: true } } },
};

let work: string;
let registry: Server;
let app: AppHub;
const api = <T>(method: string, body: unknown = {}) => callApi<T>(app, method, body);
const configText = () => readFile(join(work, 'data', 'config.json'), 'utf8');

interface Option {
  supported: boolean;
  summary: string;
  reason?: string;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'spillway-remote-address-'));
  registry = createServer((req, res) => {
    const m = /^\/v0\.1\/servers\/([^/]+)\/versions\/[^/]+$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    const name = m ? decodeURIComponent(m[1]) : '';
    const remote = name.startsWith(`${NS}/`) ? REMOTES[name.slice(NS.length + 1)] : undefined;
    if (!remote) return void res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"detail":"Server not found"}');
    const server = { name, description: `A remote (${name}).`, version: '1.0.0', remotes: [{ type: 'streamable-http', ...remote }] };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ server }));
  });
  await new Promise<void>((ok) => registry.listen(0, '127.0.0.1', ok));
  app = await startRegistryHub({ dir: work, registryUrl: `http://127.0.0.1:${(registry.address() as AddressInfo).port}` });
}, 60_000);

afterAll(async () => {
  await app?.hub.stop();
  await new Promise((ok) => registry?.close(ok));
  if (work) await rm(work, { recursive: true, force: true });
});

describe('remotes at plain http:// addresses', () => {
  it.each([
    ['plain-http', 'http://mcp.example.com'],
    ['plain-http-ip', 'http://192.168.1.20:8080'],
  ])('%s on another computer: the detail page says why it cannot be added, and Add writes nothing', async (entry, origin) => {
    const name = `${NS}/${entry}`;
    const detail = await api<{ options: Option[] }>('registry.get', { name });
    const reason = `This remote server's address (${origin}) starts with http://, not https://, so its headers (a key among them) and every tool call would cross the network unencrypted. Spillway connects over plain http only to servers on this computer. Ask the server's publisher for an https:// address.`;
    expect(detail.value!.options[0]).toMatchObject({ supported: false, reason, summary: reason });
    const before = await configText();
    const add = await api('registry.add', { name, remote: 0, values: { 'header:Authorization': 'Bearer sk-live-123' } });
    expect(add).toMatchObject({ ok: false, code: 'invalid', message: reason });
    expect(await configText()).toBe(before);
  });

  it.each(['this-computer', 'this-computer-v6', 'by-name', 'https'])('%s: offered as usual', async (entry) => {
    const detail = await api<{ options: Option[] }>('registry.get', { name: `${NS}/${entry}` });
    expect(detail.value!.options[0]).toMatchObject({ supported: true, summary: expect.stringMatching(/^Connects to http/) });
  });

  it('a host given in the form is checked once filled in: another computer is refused, this one is added', async () => {
    const name = `${NS}/host-variable`;
    const detail = await api<{ options: Option[] }>('registry.get', { name });
    expect(detail.value!.options[0].supported).toBe(true);
    const refused = await api('registry.add', { name, remote: 0, values: { 'var:host': 'mcp.example.com' } });
    expect(refused).toMatchObject({
      ok: false,
      code: 'invalid',
      field: 'values.var:host',
      message: expect.stringMatching(/^This remote server's address \(http:\/\/mcp\.example\.com\) starts with http:\/\//),
    });
    const added = await api<{ id: string }>('registry.add', { name, remote: 0, values: { 'var:host': 'localhost:9' } });
    expect(added).toMatchObject({ ok: true });
    expect(JSON.parse(await configText()).servers[added.value!.id]).toMatchObject({ type: 'http', url: 'http://localhost:9/mcp' });
  });
});

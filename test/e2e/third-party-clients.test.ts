/**
 * Real third-party clients against a real `spillway serve` on a temp HOME (issue 13, "Verify"): the MCP
 * Inspector CLI over HTTP with the token header and through the bridge exactly as Claude Desktop's written
 * entry starts it, and mcp-remote bridging stdio to the HTTP endpoint. Each lists the upstream tools, gets
 * a big result back spilled under a handle and reads it with `spillway__read_result`. Last, with the hub
 * down, a one-shot Inspector call through the bridge starts the hub itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { NODE } from '../support/hub-harness.js';
import { processesMentioning } from '../support/hub-processes.js';
import { bridgesOf, ended, runToExit, startClientHub, type ClientHub } from '../support/client-hub.js';
import { INSPECTOR, MCP_REMOTE } from '../support/third-party-clients.js';

const READ = 'spillway__read_result';
/** One line of the fixture's big text: it must come back byte for byte, multi-byte characters included. */
const LINE = 'line of log output — ünïcödé ✓ 日本語 🚀';

interface ToolResult {
  content: { type: string; text?: string }[];
  _meta?: Record<string, unknown>;
  isError?: boolean;
}

let hub: ClientHub;

beforeAll(async () => {
  hub = await startClientHub();
});
afterAll(async () => {
  await hub?.stop();
});

const textOf = (r: ToolResult) =>
  r.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

/** A spilled result: its handle, and the text the model saw (a preview, far smaller than the result). */
function spilled(r: ToolResult, chars: number): string {
  expect(r.isError).toBeFalsy();
  const handle = r._meta?.['spillway/handle'];
  expect(handle).toEqual(expect.stringMatching(/^[a-z2-7]{12,}$/));
  expect(textOf(r).length).toBeLessThan(chars / 4);
  expect(textOf(r)).toContain(LINE);
  return handle as string;
}

/** The two reads every client makes of a spilled result: its first lines, and its size. */
async function readsBack(call: (args: Record<string, unknown>) => Promise<ToolResult>, handle: string, chars: number) {
  const head = await call({ handle, op: 'head', lines: 3 });
  expect(head.isError).toBeFalsy();
  expect(textOf(head)).toContain(LINE);
  const stat = await call({ handle, op: 'stat' });
  expect(stat.isError).toBeFalsy();
  expect(textOf(stat)).toContain(chars.toLocaleString('en-US'));
}

describe('mcp-remote, bridging stdio to the HTTP endpoint with the token header', () => {
  it('lists the tools, calls one, and gets a big result spilled and read back', async () => {
    const transport = new StdioClientTransport({
      command: NODE,
      args: [MCP_REMOTE, hub.url, '--header', `Authorization: Bearer ${hub.token}`, '--transport', 'http-only'],
      env: hub.env,
      cwd: hub.home,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const client = new Client({ name: 'mcp-remote-test', version: '1' });
    let pid: number | null = null;
    try {
      await client.connect(transport);
      pid = transport.pid;
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools, stderr).toEqual(expect.arrayContaining(['big__big', 'big__ping', READ]));

      const pong = (await client.callTool({ name: 'big__ping', arguments: {} })) as ToolResult;
      expect(textOf(pong)).toBe('pong');

      const chars = 150_000;
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
      const handle = spilled(await call('big__big', { chars }), chars);
      await readsBack((args) => call(READ, args), handle, chars);
    } finally {
      await client.close();
      expect(await ended(pid ?? undefined), 'mcp-remote still running after close').toBe(true);
    }
  });
});

describe('MCP Inspector CLI', () => {
  /** One Inspector CLI run (`mcp-inspector --cli …`); its JSON answer, after it exited 0. */
  async function inspect(args: string[]): Promise<unknown> {
    const r = await runToExit(NODE, [INSPECTOR, '--cli', ...args], { env: hub.env, cwd: hub.home });
    expect(r.code, `mcp-inspector exited ${r.code}\n${r.err}`).toBe(0);
    return (JSON.parse(r.out) as { result: unknown }).result;
  }

  describe('over HTTP with the token header', () => {
    // --header takes several values: the URL goes first and an option always follows it.
    const http = (method: string, extra: string[] = []) =>
      inspect([hub.url, '--transport', 'http', '--header', `Authorization: Bearer ${hub.token}`, '--method', method, ...extra, '--format', 'json']);
    const call = (name: string, args: Record<string, unknown>) =>
      http('tools/call', ['--tool-name', name, '--tool-args-json', JSON.stringify(args)]) as Promise<ToolResult>;

    it('lists the upstream tools, and is refused without the token', async () => {
      const list = (await http('tools/list')) as { tools: { name: string }[] };
      expect(list.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['big__big', 'big__ping', READ]));

      const refused = await runToExit(NODE, [INSPECTOR, '--cli', hub.url, '--transport', 'http', '--method', 'tools/list', '--format', 'json'], {
        env: hub.env,
        cwd: hub.home,
      });
      expect(refused.code).not.toBe(0);
      expect(refused.out).not.toContain('big__big');
      expect(refused.out + refused.err).toMatch(/auth_required|401|unauthori[sz]ed/i);
    });

    it('gets a big result spilled under a handle and reads it with spillway__read_result', async () => {
      const chars = 200_000;
      const handle = spilled(await call('big__big', { chars }), chars);
      await readsBack((args) => call(READ, args), handle, chars);
    });
  });

  describe("through the bridge, as Claude Desktop's written entry starts it", () => {
    let entry: { command: string; args: string[]; env?: Record<string, string> };

    beforeAll(async () => {
      const connected = await hub.spillway(['clients', 'connect', 'claude-desktop', '--yes']);
      expect(connected.code, connected.err).toBe(0);
      const file = join(hub.home, '.config', 'Claude', 'claude_desktop_config.json');
      const json = JSON.parse(await readFile(file, 'utf8')) as { mcpServers: Record<string, typeof entry> };
      entry = json.mcpServers.spillway;
      expect(entry.args).toContain('bridge');
    });

    /** The entry's command, args and env as the Inspector's stdio target; `--` keeps its flags from the target. */
    async function viaBridge(method: string, extra: string[] = []): Promise<unknown> {
      const envFlags = Object.entries(entry.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      const result = await inspect(['--method', method, ...extra, '--format', 'json', ...envFlags, '--', entry.command, ...entry.args]);
      // The bridge ends with its client: none is left behind once the Inspector has exited.
      for (const pid of await bridgesOf(hub.dataDir)) expect(await ended(pid), `bridge ${pid} still running`).toBe(true);
      return result;
    }
    const call = (name: string, args: Record<string, unknown>) =>
      viaBridge('tools/call', ['--tool-name', name, '--tool-args-json', JSON.stringify(args)]) as Promise<ToolResult>;

    it('lists the upstream tools', async () => {
      const list = (await viaBridge('tools/list')) as { tools: { name: string }[] };
      expect(list.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['big__big', 'big__ping', READ]));
    });

    it('gets a big result spilled under a handle and reads it with spillway__read_result', async () => {
      const chars = 300_000;
      const handle = spilled(await call('big__big', { chars }), chars);
      await readsBack((args) => call(READ, args), handle, chars);
    });

    describe('with the hub down (last: the bridge starts the hub, which stop() ends)', () => {
      let names: string[] = [];

      it('a one-shot tools/list starts the hub and is answered', async () => {
        await hub.stopServing();
        names = ((await viaBridge('tools/list')) as { tools: { name: string }[] }).tools.map((t) => t.name);
        expect(names).toContain(READ);
        expect((await processesMentioning(hub.dataDir)).length, 'no hub serving the data folder').toBeGreaterThan(0);
      });

      // A one-shot client never waits for list_changed: the auto-started hub serves the last run's catalog
      // and holds a session's first tools/list (bounded) for the upstreams that were up last time.
      it('that first tools/list already has the upstream tools (issue 13, item 3)', () => {
        expect(names).toEqual(expect.arrayContaining(['big__big', 'big__ping']));
      });
    });
  });
});

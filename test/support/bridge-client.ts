/** A stdio MCP client on `spillway bridge` as a real client runs it, with its stderr to wait on. */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { NODE, ROOT } from './hub-harness.js';

export const BIN = join(ROOT, 'electron/cli/spillway.js');
export const LISTENING = /Spillway listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/;

/** The environment of a client that sets none of Spillway's variables (the written entries set none). */
export function plainEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SPILLWAY_')) env[k] = v;
  return { ...env, ...extra };
}

export interface BridgeClient {
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
  /** Resolves once the bridge's stderr matches, or contains the text (it says what it does there). */
  said(pattern: RegExp | string): Promise<void>;
}

/** A bridge process and its transport, not yet connected (connect() sends initialize). */
export function bridgeTransport(args: string[], env = plainEnv()): Omit<BridgeClient, 'client'> {
  const transport = new StdioClientTransport({ command: NODE, args: [BIN, 'bridge', ...args], env, stderr: 'pipe' });
  let stderr = '';
  const waiters: { seen: () => boolean; resolve: () => void }[] = [];
  transport.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
    for (const w of [...waiters]) {
      if (!w.seen()) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  const said = (pattern: RegExp | string) => {
    const seen = () => (typeof pattern === 'string' ? stderr.includes(pattern) : pattern.test(stderr));
    return seen() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ seen, resolve }));
  };
  return { transport, stderr: () => stderr, said };
}

/** Connects a client through a new bridge process. */
export async function openBridge(args: string[], env = plainEnv()): Promise<BridgeClient> {
  const parts = bridgeTransport(args, env);
  const client = new Client({ name: 'claude-ai', version: '1' });
  await client.connect(parts.transport);
  return { client, ...parts };
}

/** Resolves once the hub lists `name` to this client (list_changed travels through the bridge). */
export async function toolListed(client: Client, name: string): Promise<void> {
  const changed = () => new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  for (;;) {
    const next = changed();
    if ((await client.listTools()).tools.some((t) => t.name === name)) return;
    await next;
  }
}

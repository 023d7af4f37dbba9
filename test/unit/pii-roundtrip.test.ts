/**
 * The masking round trip the hub performs, against a real MCP server in-process: arguments masked before
 * the call, the server records what it received (never the originals), the result restored for the
 * caller equals what an unmasked call returns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createMasker, restore } from '../../electron/core/pii/index.js';

const received: unknown[] = [];
let client: Client;
let server: McpServer;

beforeAll(async () => {
  server = new McpServer({ name: 'recording-crm', version: '1.0.0' });
  server.registerTool(
    'create_contact',
    {
      description: 'Stores a contact and echoes it',
      inputSchema: { name: z.string(), email: z.string(), phone: z.string(), notes: z.array(z.string()) },
      outputSchema: { id: z.number(), contact: z.object({ name: z.string(), email: z.string(), phone: z.string() }) },
    },
    async (args) => {
      received.push(args);
      const contact = { name: args.name, email: args.email, phone: args.phone };
      return {
        content: [{ type: 'text', text: `Created contact ${args.name} <${args.email}>, ${args.phone}. Notes: ${args.notes.join(' | ')}` }],
        structuredContent: { id: 7, contact },
      };
    },
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'test', version: '1.0.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

describe('masking around a real tool call', () => {
  const args = {
    name: 'Jane Doe',
    email: 'jane.doe@example.com',
    phone: '+1 (415) 555-2671',
    notes: ['Prefers email to jane.doe@example.com', 'DOB: 04/12/1990', 'VPN from 203.0.113.7'],
  };
  const call = (a: unknown) =>
    client.request({ method: 'tools/call', params: { name: 'create_contact', arguments: a as Record<string, unknown> } }, CallToolResultSchema);

  it('the server never sees the originals, and the restored result equals an unmasked call', async () => {
    const direct = await call(args);
    received.length = 0;

    const masker = createMasker();
    const { masked, vault } = masker.maskArguments(args);
    const result = await call(masked);

    expect(received).toEqual([
      { name: 'Jane Doe', email: '[EMAIL_1]', phone: '[PHONE_1]', notes: ['Prefers email to [EMAIL_1]', 'DOB: [DOB_1]', 'VPN from [IPV4_1]'] },
    ]);
    const seen = JSON.stringify(received);
    for (const original of ['jane.doe@example.com', '555-2671', '04/12/1990', '203.0.113.7']) expect(seen).not.toContain(original);
    expect(JSON.stringify(result)).not.toContain('jane.doe@example.com');

    expect(restore(result, vault)).toEqual(direct);
  });
});

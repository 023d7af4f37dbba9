/**
 * Dispatch part (issue 5): tokens of the tools/list a client gets from `spillway serve` relaying
 * server-everything + server-filesystem + server-memory, every tool exposed directly vs dispatch-only
 * (Spillway's own tools plus spillway__dispatch). Counted with the ledger's tokenizer, as a ratio.
 */
import { join } from 'node:path';
import type { ProcessGroup } from './bench-processes.js';
import { builtTokenCounter } from './built-core.js';
import { ratio } from './measure.js';
import { NODE, ROOT, httpClient, startSpillway, untilListed } from './relays.js';
import type { Report } from './report.js';

const server = (pkg: string) => join(ROOT, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js');

export async function dispatchBench(g: ProcessGroup, tmp: string, report: Report): Promise<void> {
  const dir = join(tmp, 'dispatch');
  const hub = await startSpillway(g, join(dir, 'hub'), {
    everything: { type: 'stdio', command: NODE, args: [server('server-everything'), 'stdio'] },
    filesystem: { type: 'stdio', command: NODE, args: [server('server-filesystem'), dir] },
    memory: { type: 'stdio', command: NODE, args: [server('server-memory')], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
  });
  const client = await httpClient(g, hub.url, hub.token);
  for (const tool of ['everything__echo', 'filesystem__list_directory', 'memory__read_graph']) await untilListed(client, tool);

  const TokenCounter = await builtTokenCounter();
  const counter = new TokenCounter();
  try {
    const listed = async () => {
      const { tools } = await client.listTools();
      return { tools, tokens: await counter.count(JSON.stringify({ tools })) };
    };
    const direct = await listed();
    const set = await fetch(`${new URL(hub.url).origin}/api/policies.setDefaults`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dispatchOnly: true }),
    });
    const answer = (await set.json()) as { ok: boolean; message?: string };
    if (!answer.ok) throw new Error(`policies.setDefaults failed: ${answer.message}`);
    const dispatchOnly = await listed();
    const upstream = direct.tools.filter((t) => !t.name.startsWith('spillway__')).length;
    report.table(
      'tools/list for server-everything + server-filesystem + server-memory (o200k tokens)',
      ['exposure', 'tools listed', 'tokens', 'vs direct'],
      [
        ['direct', String(direct.tools.length), String(direct.tokens), '1.00x'],
        ['dispatch-only', String(dispatchOnly.tools.length), String(dispatchOnly.tokens), ratio(dispatchOnly.tokens / direct.tokens)],
      ],
      [`direct / dispatch-only: ${(direct.tokens / dispatchOnly.tokens).toFixed(1)}x (${upstream} upstream tools behind spillway__dispatch)`],
    );
  } finally {
    await counter.close();
  }
}

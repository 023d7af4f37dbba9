/**
 * `npm run bench` (dispatch part, issue 5): tokens of the tools/list a client gets for server-everything +
 * server-filesystem + server-memory, every tool exposed directly vs dispatch-only (Spillway's own tools
 * plus spillway__dispatch). Counted with the same tokenizer as the ledger, in one run, as a ratio.
 * Runs alone too: `node --import tsx test/bench/dispatch-bench.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { EVERYTHING, FILESYSTEM, MEMORY, NODE, startTestHub } from '../support/hub-harness.js';

export interface DispatchBenchResult {
  servers: number;
  upstreamTools: number;
  direct: { tools: number; tokens: number };
  dispatchOnly: { tools: number; tokens: number };
  /** direct tokens / dispatch-only tokens. */
  ratio: number;
}

export async function dispatchBench(): Promise<DispatchBenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-dispatch-bench-'));
  const counter = new TokenCounter();
  const t = await startTestHub({
    version: 1,
    servers: {
      everything: { type: 'stdio', command: NODE, args: [EVERYTHING, 'stdio'] },
      filesystem: { type: 'stdio', command: NODE, args: [FILESYSTEM, dir] },
      memory: { type: 'stdio', command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
    },
    settings: { port: 0 },
  });
  try {
    await Promise.all(['everything', 'filesystem', 'memory'].map((id) => t.waitForStatus(id, 'ready')));
    const client = await t.connect();
    const tokensOf = async () => {
      const { tools } = await client.listTools();
      return { tools: tools.length, tokens: await counter.count(JSON.stringify({ tools })) };
    };
    const direct = await tokensOf();
    const set = await t.api('policies.setDefaults', { dispatchOnly: true });
    if (!set.ok) throw new Error(`policies.setDefaults failed: ${set.message}`);
    const dispatchOnly = await tokensOf();
    const result: DispatchBenchResult = {
      servers: 3,
      upstreamTools: t.hub.catalog.toolEntries().length,
      direct,
      dispatchOnly,
      ratio: direct.tokens / dispatchOnly.tokens,
    };
    console.log('\ntools/list for server-everything + server-filesystem + server-memory (o200k tokens)');
    console.log('| exposure | tools listed | tokens |');
    console.log('|---|---|---|');
    console.log(`| direct | ${direct.tools} | ${direct.tokens} |`);
    console.log(`| dispatch-only | ${dispatchOnly.tools} | ${dispatchOnly.tokens} |`);
    console.log(`direct / dispatch-only: ${result.ratio.toFixed(1)}x (${result.upstreamTools} upstream tools behind spillway__dispatch)`);
    return result;
  } finally {
    await t.stop();
    await counter.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await dispatchBench();

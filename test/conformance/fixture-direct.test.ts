/**
 * The conformance fixture on its own, without the hub: proves the fixture is sound, so that a
 * failure of the same suite through the hub points at the hub.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runConformance } from './run-conformance.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.resolve(here, '../fixtures/conformance-server.mjs');
const baseline = path.join(here, 'expected-failures.yml');

/** The 30 scenarios of the suite's default `active` run, plus the two pending ones. */
const ACTIVE = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
];

/** Starts the fixture over HTTP and resolves with its URL once it prints its listening line. */
async function startHttpFixture(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [fixture, '--http', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code}: ${stderr}`)));
    child.once('error', reject);
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

describe('conformance fixture over Streamable HTTP', () => {
  let child: ChildProcess;
  let url: string;
  let outDir: string;

  beforeAll(async () => {
    ({ child, url } = await startHttpFixture());
    outDir = await mkdtemp(path.join(os.tmpdir(), 'spillway-conformance-'));
  });

  afterAll(async () => {
    if (child) await stop(child);
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('passes every scenario of the suite except those in the baseline', async () => {
    const result = await runConformance({ url, outDir, suite: 'all', expectedFailuresFile: baseline });

    expect(result.baseline, result.raw).toEqual({ expected: ['server-sse-polling'], unexpected: [], stale: [] });
    expect(result.exitCode, result.raw).toBe(0);
    expect(result.failed.map((failure) => failure.name)).toEqual(['server-sse-polling']);
    expect(result.passed).toEqual(expect.arrayContaining([...ACTIVE, 'json-schema-2020-12']));
    expect(result.passed).toHaveLength(ACTIVE.length + 1);
  });
});

describe('conformance fixture over stdio', () => {
  it('serves the same tools, resources and prompts to an SDK client', async () => {
    const client = new Client({ name: 'fixture-direct-test', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [fixture], stderr: 'pipe' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('test_simple_text');
      const schemaTool = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
      expect(schemaTool?.inputSchema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', additionalProperties: false });

      const progress: number[] = [];
      const called = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
        onprogress: (notification) => progress.push(notification.progress),
      });
      expect(called.content).toEqual([{ type: 'text', text: 'Tool with progress executed successfully' }]);
      expect(progress.length).toBeGreaterThanOrEqual(2); // the SDK may drop the last one (TOOLCHAIN.md)

      const read = await client.readResource({ uri: 'test://template/42/data' });
      const [content] = read.contents;
      expect('text' in content && JSON.parse(content.text)).toEqual({ id: '42', templateTest: true, data: 'Data for ID: 42' });

      const completion = await client.complete({
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'par' },
      });
      expect(completion.completion.values).toEqual(['paris', 'park', 'party']);

      // No sampling capability declared: the tool reports the failure as a result.
      const sampling = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
      expect(sampling.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});

/**
 * The third-party suite @modelcontextprotocol/conformance against Spillway's own endpoint, fronting the
 * conformance fixture (stdio, no prefix). Every scenario the fixture passes directly must pass through
 * the hub too; `hub-expected-failures.yml` lists any that cannot, with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { runConformance } from './run-conformance.js';

let hub: TestHub;
let outDir: string;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'spillway-conformance-'));
  hub = await startTestHub({ mcpServers: { conformance: nodeServer(fixture('conformance-server.mjs'), [], { prefix: false }) } });
  await hub.waitForStatus('conformance', 'ready');
});

afterAll(async () => {
  await hub?.stop();
  await rm(outDir, { recursive: true, force: true });
});

describe('conformance suite through the hub', () => {
  it('passes every active scenario the fixture supports', async () => {
    // The suite's client cannot set headers; the endpoint also takes the token as ?token=.
    const url = `${hub.url}?token=${encodeURIComponent(hub.token)}`;
    const result = await runConformance({
      url,
      outDir,
      expectedFailuresFile: join(import.meta.dirname, 'hub-expected-failures.yml'),
    });
    expect(result.failed.map((f) => `${f.name}: ${f.reason}`)).toEqual([]);
    console.log(`conformance through the hub: ${result.passed.length} scenarios passed`);
    expect(result.passed.length).toBeGreaterThanOrEqual(29);
  });
});

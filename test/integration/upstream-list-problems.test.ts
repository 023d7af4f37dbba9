/**
 * A server that declares prompts and resources but refuses to list them (its resources/list and
 * prompts/list answer "Method not found") is served with those lists empty: the control API's server
 * info says so (listProblems, shown on the server's card), not only its clients' log.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { UpstreamInfo } from '../../shared/api.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub(async () => ({
    mcpServers: { partial: nodeServer(fixture('unlisted-prompts-server.mjs')), full: nodeServer(fixture('fixture-server.mjs')) },
  }));
}, 60_000);
afterAll(async () => {
  await hub?.stop();
});

it("tells which declared lists a server refused, with the server's message", async () => {
  await hub.waitForStatus('partial', 'ready');
  await hub.waitForStatus('full', 'ready');
  const listed = await hub.api<UpstreamInfo[]>('upstreams.list');
  expect(listed.ok).toBe(true);
  const partial = listed.value!.find((u) => u.id === 'partial')!;
  expect(partial.listProblems?.map((p) => p.list).sort()).toEqual(['prompts', 'resources']);
  for (const problem of partial.listProblems!) expect(problem.message).toMatch(/Method not found/);
  expect(listed.value!.find((u) => u.id === 'full')!.listProblems).toBeUndefined();
});

/**
 * A stdio server that fails at start shows why (audit s13): its error line rather than Node's stack and
 * version trailer, or, when it printed nothing, its exit status and the next step.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NODE } from '../support/hub-harness.js';
import { upstreamRun } from '../support/upstream-run.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A node server with these arguments, stopped after its first failed start. */
async function failedStart(args: string[]): Promise<string> {
  const t = upstreamRun({ type: 'stdio', command: NODE, args }, { crashLoopFailures: 1 });
  stops.push(() => t.up.stop());
  t.up.start();
  await t.until(() => t.up.status === 'error', 'the failed start');
  return t.up.error!;
}

describe('a stdio server that fails at start', () => {
  it('that throws: its error line, without the stack frames or "Node.js vX"', async () => {
    const error = await failedStart(['-e', "throw new Error('GITHUB_TOKEN is not set: put it in the server env')"]);
    expect(error).toMatch(/stderr: Error: GITHUB_TOKEN is not set: put it in the server env/);
    expect(error).not.toMatch(/Node\.js v\d|\bat \[eval\]/);
  });

  it('whose script is missing: "Cannot find module", not the error object\'s fields', async () => {
    const error = await failedStart(['/no/such/folder/server.js']);
    expect(error).toMatch(/stderr: Error: Cannot find module '\/no\/such\/folder\/server\.js'/);
    expect(error).not.toMatch(/requireStack|Node\.js v\d|^\}$/m);
  });

  it('that exits without a word: its exit code and what to do, not "Connection closed"', async () => {
    const error = await failedStart(['-e', 'process.exit(1)']);
    expect(error).toMatch(/^the server exited at start \(code 1\) without output; run its command in a terminal to see why/);
  });

  it('that writes a plain line and exits: that line, with the exit code', async () => {
    const error = await failedStart(['-e', "console.error('config file missing'); process.exit(2)"]);
    expect(error).toMatch(/^the server exited at start \(code 2\) — stderr: config file missing/);
  });
});

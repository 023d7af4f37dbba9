/**
 * A hidden secret the upstream quotes outside any result is not shown either: in a log message it sends
 * (notifications/message, relayed to every session) it is replaced by `[hidden: key]`, in its text and at
 * any depth of structured data, and in what it prints to stderr (`upstream.stderr` events) the event log
 * masks it. The secret sits under the name `key` and looks like no token, so only the hidden parameter's
 * name makes it a secret: the result stage, the relayed log and the event log agree on that (one list,
 * policy/hidden-secrets.ts's hiddenSecretTexts). A real hub over HTTP, the SDK Client, a stdio server
 * (secret-logging-server.mjs).
 */
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { NODE, fixture, startTestHub } from '../support/hub-harness.js';

const HIDDEN = 'orchard-lane';

it("replaces a hidden secret in the upstream's relayed log messages and masks it in its stderr events", async () => {
  const t = await startTestHub({
    version: 1,
    servers: { rlog: { type: 'stdio', command: NODE, args: [fixture('secret-logging-server.mjs')] } },
    policies: { tools: { rlog: { echo: { hiddenParams: { key: HIDDEN } } } } },
    settings: { port: 0 },
  });
  try {
    const events: HubEvent[] = [];
    const off = t.hub.events.subscribe((e) => void events.push(e));
    await t.waitForStatus('rlog', 'ready');
    const c = await t.connect();
    const logs: unknown[] = [];
    let heardBoth: () => void;
    const both = new Promise<void>((resolve) => (heardBoth = resolve));
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
      if (logs.length === 2) heardBoth();
    });
    const stderr = t.waitFor((e) => e.type === 'upstream.stderr' && e.server === 'rlog' && e.line.includes('auth failed'), 'the stderr line');
    await c.callTool({ name: 'rlog__echo', arguments: { q: 'pears' } });
    await both;
    const line = await stderr;
    off();

    expect(logs).toEqual([
      { level: 'error', logger: 'rlog/auth', data: 'auth failed for key [hidden: key]' },
      { level: 'info', logger: 'rlog', data: { attempt: { key: '[hidden: key]', q: 'pears' } } },
    ]);
    expect(JSON.stringify(line)).not.toContain(HIDDEN);
    expect(line).toMatchObject({ line: 'stderr: auth failed for key ***' });
    expect(events.filter((e) => JSON.stringify(e).includes(HIDDEN))).toEqual([]);
  } finally {
    await t.stop();
  }
}, 60_000);

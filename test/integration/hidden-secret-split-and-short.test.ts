/**
 * Two places a hidden secret slipped through (s19 notes), with a real hub over HTTP, the SDK Client and
 * stdio fixture servers: a secret the upstream's result splits across adjacent text blocks (each block
 * holding part of it; split-result-server.mjs cuts its text into blocks of `blockChars`) is replaced, the
 * placeholder where it starts; and a 4-character hidden secret the upstream prints to stderr
 * (secret-logging-server.mjs) is masked in the `upstream.stderr` event as a whole word, as in the relayed
 * log message, while the server's short env values stay readable.
 */
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { NODE, fixture, startTestHub } from '../support/hub-harness.js';

const SEED = 'sk-orchardLane0123456789abcd';

it('replaces a hidden secret the upstream splits across text blocks', async () => {
  const t = await startTestHub({
    version: 1,
    servers: { sp: { type: 'stdio', command: NODE, args: [fixture('split-result-server.mjs')] } },
    policies: { tools: { sp: { split: { hiddenParams: { seed: SEED } } } } },
    settings: { port: 0 },
  });
  try {
    await t.waitForStatus('sp', 'ready');
    const c = await t.connect();
    const r = (await c.callTool({ name: 'sp__split', arguments: { chars: 600, blockChars: 20 } })) as CallToolResult;
    const texts = r.content.map((b) => (b.type === 'text' ? b.text : ''));
    expect(texts.length).toBeGreaterThan(20);
    const joined = texts.join('');
    expect(joined).not.toContain('orchardLane');
    expect(joined.startsWith('[hidden: seed] The quick brown fox')).toBe(true);
    // Every whole line's seed (lines of 85 characters: the seed starts at a different place in its block each time).
    expect(joined.match(/\[hidden: seed\] The quick/g)?.length).toBe(7);
  } finally {
    await t.stop();
  }
}, 60_000);

it("masks a 4-character hidden secret in the upstream's stderr events, not its short env values", async () => {
  const t = await startTestHub({
    version: 1,
    servers: { rlog: { type: 'stdio', command: NODE, args: [fixture('secret-logging-server.mjs')], env: { LOG_LEVEL: 'warn' } } },
    policies: { tools: { rlog: { echo: { hiddenParams: { key: '4711' } } } } },
    settings: { port: 0 },
  });
  try {
    const events: HubEvent[] = [];
    const off = t.hub.events.subscribe((e) => void events.push(e));
    await t.waitForStatus('rlog', 'ready');
    const c = await t.connect();
    let heard: (data: unknown) => void;
    const logged = new Promise<unknown>((resolve) => (heard = resolve));
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => heard(n.params.data));
    const stderr = t.waitFor((e) => e.type === 'upstream.stderr' && e.server === 'rlog' && e.line.includes('auth failed'), 'the stderr line');
    await c.callTool({ name: 'rlog__echo', arguments: { q: 'warn 947112' } });
    expect(await logged).toBe('auth failed for key [hidden: key]');
    expect(await stderr).toMatchObject({ line: 'stderr: auth failed for key ***' });
    off();
    expect(events.filter((e) => /(?<![\d])4711(?!\d)/.test(JSON.stringify(e)))).toEqual([]);
    // Its relayed structured log message quotes q: a word equal to the short env value, and a number holding the PIN, stay.
    expect(JSON.stringify(events)).toContain('warn 947112');
  } finally {
    await t.stop();
  }
}, 60_000);

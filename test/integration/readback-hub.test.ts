/**
 * Reading a spilled result back through a real hub (audit s15): 64-bit ids in query answers, tail of a log
 * with long lines, grep's line numbers read by slice, and the window's viewer paging the original.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { parseGrep, parsePage } from '../../renderer/src/lib/spill-pages.js';

let hub: TestHub;
let client: Client;
type Result = Record<string, unknown>;
const textOf = (r: Result) =>
  (r.content as { type: string; text?: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
const handleOf = (r: Result) => (r._meta as Record<string, string>)['spillway/handle']!;
const read = async (args: Record<string, unknown>) => textOf((await client.callTool({ name: 'spillway__read_result', arguments: args })) as Result);
const spill = async (name: string) => {
  const r = (await client.callTool({ name: 'p__payload', arguments: { name } })) as Result;
  return { handle: handleOf(r), text: textOf(r) };
};
const viewerRead = async (args: Record<string, unknown>) => (await hub.api<{ text: string }>('spill.read', args)).value!.text;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { p: { type: 'stdio', ...nodeServer(fixture('payload-server.mjs')) } } });
  await hub.waitForStatus('p', 'ready');
  client = await hub.connect();
}, 60_000);
afterAll(async () => hub?.stop());

describe('read-back answers', () => {
  it('answers a query with a 64-bit id as the upstream sent it, and filters by it exactly', async () => {
    const { handle, text } = await spill('snowflakes');
    expect(text).not.toContain('1189594358021324800'); // the rounded id
    expect(await read({ handle, op: 'query', query: '$.messages[0].id' })).toBe('Query "$.messages[0].id":\n1189594358021324801');
    // The ids 7 apart all round to one double: only the exact one matches.
    const filtered = await read({ handle, op: 'query', query: '.messages | filter(.id == 1189594358021324808) | map(.author)' });
    expect(filtered).toBe('Query ".messages | filter(.id == 1189594358021324808) | map(.author)":\n[\n  "user1"\n]');
    const stat = await read({ handle, op: 'stat' });
    expect(stat).toContain('"messages": array of 3,000');
  });

  it('tail of a log with long lines shows its last lines, under a header naming them', async () => {
    const { handle } = await spill('longlog');
    const answer = await read({ handle, op: 'tail' });
    const [, from, to] = /^Lines ([\d,]+)-([\d,]+) of 2,001:\n/.exec(answer)!;
    expect(to).toBe('2,001');
    expect(answer).toContain('\nLAST LINE OF THE LOG\n[output capped at 8,000 tokens; ask for fewer lines: the last ');
    const first = Number(from!.replace(',', ''));
    expect(answer).toContain(`\n${String(first).padStart(5, '0')} ts=`);
    expect(answer).not.toContain(`\n${String(first - 1).padStart(5, '0')} ts=`);
    expect(answer).toContain(`{"op":"slice","start":1952,"end":${first - 1}}`);
  });

  it('slice with "view":"json" reads the line grep named in the JSON text of a table shown as TOON', async () => {
    const { handle } = await spill('table');
    const g = await read({ handle, op: 'grep', pattern: '"name": "row 1500"' });
    expect(g).toMatch(/^\[No row of its TOON view matches; these are lines of its JSON text[^\n]*"view":"json"/);
    const line = Number(/\n(\d+):/.exec(g)![1]);
    expect(g).toContain(`{"op":"slice","start":${line},"view":"json"}`);
    const s = await read({ handle, op: 'slice', start: line, end: line, view: 'json' });
    expect(s).toBe(
      `[Lines of its JSON text ("view":"json"), numbered as grep numbers them when no TOON row matches]\nLines ${line.toLocaleString('en-US')}-${line.toLocaleString('en-US')} of 18,002:\n    "name": "row 1500",`,
    );
  });
});

describe("the window's spill viewer (spill.read, paged by parsePage)", () => {
  it('pages a log with long lines by the lines each page holds, so Next skips none', async () => {
    const { handle } = await spill('longlog');
    const page = parsePage(await viewerRead({ handle, op: 'slice', start: 1, end: 100 }), 1, 100, 2001);
    expect(page.to).toBeLessThan(100); // 100 lines of ~600 characters are past the output cap
    expect(page.text.split('\n')).toHaveLength(page.to);
    expect(page.text.endsWith(` n=${page.to}`)).toBe(true); // the page's last line is the one its header names
    const next = parsePage(await viewerRead({ handle, op: 'slice', start: page.to + 1, end: page.to + 100 }), page.to + 1, 100, 2001);
    expect(next.from).toBe(page.to + 1);
    expect(next.text.startsWith(`${String(page.to + 1).padStart(5, '0')} ts=`)).toBe(true);
  });

  it('shows the JSON lines of a table shown to models as TOON, and a search match opens the page that holds it', async () => {
    const { handle } = await spill('table');
    const page = parsePage(await viewerRead({ handle, op: 'slice', start: 1, end: 100 }), 1, 100, 18_002);
    expect(page).toMatchObject({ from: 1, to: 100, total: 18_002 });
    expect(page.text.startsWith('[\n  {\n    "id": 1,')).toBe(true);
    const match = parseGrep(await viewerRead({ handle, op: 'grep', pattern: 'row 1500"', maxMatches: 200 })).matches.find((m) => m.isMatch)!;
    const start = Math.floor((match.line - 1) / 100) * 100 + 1;
    expect(await viewerRead({ handle, op: 'slice', start, end: start + 99 })).toContain('"name": "row 1500"');
  });
});

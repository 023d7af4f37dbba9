/**
 * What the model reads of a result must match what is kept (audit s13, readback and compress): numbers
 * JSON.parse cannot hold are shown as the text has them, grep numbers the lines slice shows, a preview cut
 * inside a line says so and where to go on, the header's example query runs on the result, and a kept
 * copy with personal data masked says so.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { encodePassed } from '../../electron/core/call/result-encoding.js';
import type { CallReport } from '../../electron/core/call/call-report.js';
import type { ResultPolicy } from '../../electron/core/call/relay-contract.js';
import { numbersParseExactly } from '../../electron/core/encoding/toon-encoding.js';
import { answerRead } from '../../electron/core/spill/read-document.js';
import { largeLinesView, linesView } from '../../electron/core/spill/read-encoding.js';
import { queryJson } from '../../electron/core/spill/read-ops.js';
import { readResult } from '../../electron/core/spill/read-result.js';
import { ReadThread } from '../../electron/core/spill/read-thread-host.js';
import { noteMaskedCopy, startPreview } from '../../electron/core/spill/result-preview.js';
import type { ShapePolicy } from '../../electron/core/spill/shape-decision.js';
import { shapeResult } from '../../electron/core/spill/shape-result.js';
import { SpillDocument } from '../../electron/core/spill/spill-document.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
const ctx = { server: 'db', tool: 'rows', client: 'cursor' };
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-readback-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now: Date.now, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const spill = (thresholdTokens: number, previewTokens = 300): ShapePolicy => ({ action: 'spill', thresholdTokens, previewTokens });
const textResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });
const textOf = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

/** Spills `text` and returns what the model got, the handle, and a reader of it. */
async function spilled(text: string, policy = spill(500)) {
  const { delivered, outcome } = await shapeResult(textResult(text), policy, ctx, { store, counter, now: Date.now });
  expect(outcome.action).toBe('spill');
  const handle = outcome.handle!;
  // Every op on this thread (a test's option): the read thread's side is tested below with answerRead.
  const read = async (args: Record<string, unknown>) => {
    const answer = await readResult(store, counter, { handle, ...args }, { offThreadAboveBytes: Infinity });
    return { text: textOf(answer), isError: answer.isError === true };
  };
  const shown = textOf({ content: delivered.content.slice(0, 1) });
  return { shown, header: shown.slice(0, shown.indexOf('\n---\n')), preview: shown.slice(shown.indexOf('\n---\n') + 5), handle, read };
}

/** 64-bit ids, as snowflake or tweet ids come: JSON.parse rounds each to a double (…789 → …800). */
const IDS = Array.from({ length: 300 }, (_, i) => (1234567890123456789n + BigInt(i)).toString());
const ID_TABLE = `[\n${IDS.map((id, i) => `  {"id": ${id}, "name": "user ${i}", "status": "open", "score": ${i}}`).join(',\n')}\n]`;

describe('numbers JSON.parse cannot hold are shown as the text has them', () => {
  it.each([
    ['[1, 2.5, -3, 1e20, 1.5e-7, 0.1, -0, 1.0, 1E+2]', true],
    ['{"id": 9007199254740991, "n": 1234567890123456}', true],
    ['{"id": 9007199254740993}', false],
    ['{"id": 1234567890123456789}', false],
    ['{"limit": 1e400}', false],
    ['{"tiny": 1e-400}', false],
    ['{"pi": 3.14159265358979323846}', false],
    ['{"s": "1234567890123456789 in a string", "t": "a \\" 1e400"}', true],
    ['{"s": "ends in a backslash \\\\", "id": 1234567890123456789}', false],
  ])('numbersParseExactly(%s) is %s', (text, exact) => {
    expect(numbersParseExactly(text)).toBe(exact);
  });

  const policy: ResultPolicy = { action: 'pass', thresholdTokens: null, previewTokens: 0, encoding: 'auto' };
  const passed = (text: string) => ({ delivered: textResult(text) }) as Partial<CallReport> as CallReport;

  it('a passed table with 64-bit ids stays JSON; one without is shown as TOON', async () => {
    const compact = `[${IDS.map((id, i) => `{"id":${id},"name":"user ${i}","status":"open","score":${i}}`).join(',')}]`;
    const kept = await encodePassed(passed(compact), policy, counter);
    expect(textOf(kept.delivered)).toBe(compact);
    const small = compact.replaceAll(/"id":(\d+)/g, (_m, id: string) => `"id":${id.slice(-4)}`);
    const toon = await encodePassed(passed(small), policy, counter);
    expect(textOf(toon.delivered)).toMatch(/^\[300\]\{id,name,status,score\}:/);
    await toon.countingDelivered; // the count of what is delivered, which the report waits for
  });

  it('a spilled table with 64-bit ids is previewed and read with the ids it holds', async () => {
    const { header, preview, read } = await spilled(ID_TABLE);
    // Its text's start instead of a summary, which would show the ids rounded.
    expect(preview).toContain(IDS[0]);
    expect(preview).not.toContain('1234567890123456800');
    expect(header).toContain('"op":"query","query":"size()"');
    // Lines are read on the JSON: a TOON view would be made from the rounded values.
    const head = await read({ op: 'head', lines: 4 });
    expect(head.text).toContain(IDS[0]);
    expect(head.text).toContain(IDS[1]);
    expect(head.text).not.toContain('[Lines of the result as TOON');
  });

  it('a number out of range is not previewed as null', async () => {
    const text = JSON.stringify({ limit: 0, rows: Array.from({ length: 400 }, (_, i) => ({ i, word: `word ${i}` })) }).replace(
      '"limit":0',
      '"limit":1e400',
    );
    const { preview, header } = await spilled(text);
    expect(preview).toContain('"limit":1e400');
    expect(header).toContain('"query":".rows | size()"');
  });
});

describe('grep numbers the lines head, tail and slice show', () => {
  const rows = Array.from({ length: 500 }, (_, i) => ({ id: i, name: `user ${i}`, status: i === 321 ? 'FAILED' : 'ok' }));

  it('on the TOON view of a table, and says so', async () => {
    const { read, handle } = await spilled(JSON.stringify(rows, null, 2));
    const grep = await read({ op: 'grep', pattern: 'FAILED' });
    expect(grep.text).toMatch(/^\[Lines of the result as TOON: [^\n]*head, tail, slice and grep number these lines/);
    const line = Number(/\n(\d+):/.exec(grep.text)![1]);
    expect(line).toBe(323); // the TOON header line, then row 0 on line 2
    const slice = await read({ op: 'slice', start: line, end: line });
    expect(slice.isError).toBe(false);
    expect(slice.text).toContain('321,user 321,FAILED');
    const stat = await read({ op: 'stat' });
    expect(stat.text).toContain('Head, tail, slice and grep read its TOON view (one row a line): 501 lines.');
    // As read_result runs a grep: on the read thread, given the view chosen here.
    const thread = new ReadThread();
    try {
      expect(textOf(await readResult(store, counter, { handle, op: 'grep', pattern: 'FAILED' }, { thread }))).toBe(grep.text);
      expect(thread.running).toBe(true);
    } finally {
      await thread.close();
    }
  });

  it('on the JSON text when a pattern written for the JSON finds no row of the view, and says so', async () => {
    const { read } = await spilled(JSON.stringify(rows, null, 2));
    const grep = await read({ op: 'grep', pattern: '"status": "FAILED"' });
    expect(grep.text).toMatch(/^\[No row of its TOON view matches; these are lines of its JSON text/);
    expect(grep.text).toMatch(/\n\d+:\s*"status": "FAILED"/);
    // Nothing anywhere: the view's own answer.
    expect((await read({ op: 'grep', pattern: '"status": "NOWHERE"' })).text).toMatch(
      /^\[Lines of the result as TOON[^\n]*\ngrep [^\n]*: 0 matching lines/,
    );
  });

  it('on the read thread too, given the view the main thread chose', async () => {
    const doc = new SpillDocument(JSON.stringify(rows, null, 2));
    const view = (await linesView(doc, 'auto', counter))!;
    expect(view.doc).not.toBe(doc);
    const grep = { op: 'grep' as const, pattern: 'FAILED' };
    const here = await answerRead(doc, { op: grep, contentType: 'json' }, () => view);
    // As read-thread.ts answers: a fresh document, no token counter, the view named by its header.
    const thread = await answerRead(new SpillDocument(doc.text), { op: grep, contentType: 'json', toonHeader: view.header }, (d) =>
      largeLinesView(d, 'auto'),
    );
    expect(thread).toEqual(here);
    expect(here).toMatchObject({ op: 'text', text: expect.stringContaining('\n323:  321,user 321,FAILED') });
    const json = await answerRead(new SpillDocument(doc.text), { op: grep, contentType: 'json', toonHeader: null }, (d) => largeLinesView(d, 'auto'));
    expect(json).toMatchObject({ op: 'text', text: expect.stringMatching(/^grep \/FAILED\/i: 1 matching line of 2,502:\n1610:/) });
  });

  it('on the JSON lines of what has no TOON view, without a header', async () => {
    const { read } = await spilled(JSON.stringify({ text: 'x'.repeat(4000), notes: Array.from({ length: 300 }, (_, i) => `note ${i}`) }, null, 2));
    const grep = await read({ op: 'grep', pattern: '"note 7"' });
    expect(grep.text).toMatch(/^grep \/"note 7"\/i: 1 matching line of/);
    const line = Number(/\n(\d+):/.exec(grep.text)![1]);
    expect((await read({ op: 'slice', start: line, end: line })).text).toContain('"note 7"');
  });
});

describe('the query a table too large for TOON is told to read rows with', () => {
  const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, name: `row ${i}` }));
  it.each([
    ['a top-level array', rows, 'limit(100)'],
    ['the first top-level key holding rows, not a nested one', { meta: { x: [{ a: 1 }] }, 'the rows': rows }, '."the rows" | limit(100)'],
  ])('%s', async (_name, value, query) => {
    const doc = new SpillDocument(JSON.stringify(value));
    const view = await linesView(doc, 'auto', counter, { maxChars: 100, deadlineMs: 60_000 });
    expect(view?.header).toContain(`e.g. \`${query}\`]`);
    const answer = queryJson(doc, query);
    expect(typeof answer === 'string' ? answer : answer.value).toEqual(Array.isArray(value) ? value : value['the rows']);
  });
});

describe('a text preview says where it stops', () => {
  /** Lines of ~5,000 characters: a 300-token preview ends inside the first. */
  const long = Array.from(
    { length: 40 },
    (_, i) => `record ${i}: ${Array.from({ length: 700 }, (_, k) => `w${(i * 31 + k) % 997}`).join(' ')} END-${i}`,
  ).join('\n');
  const log = Array.from({ length: 3000 }, (_, i) => `2026-01-01 12:00:00 INFO request ${i} served`).join('\n');

  it('cut inside a line: marks it and suggests reading on from the character after the preview', async () => {
    const { header, preview, read } = await spilled(long);
    expect(preview.includes('\n')).toBe(false);
    expect(header).toMatch(/showing the first [\d,]+ tokens \(the start of line 1, which goes on past the preview\)/);
    expect(header).toContain(`"op":"read","offset":${preview.length}}`);
    expect(header).not.toContain('"op":"slice"');
    const next = await read({ op: 'read', offset: preview.length, maxTokens: 50 });
    expect(long.slice(preview.length).startsWith(next.text.slice(0, next.text.indexOf('\n[characters')))).toBe(true);
  });

  it('cut at a line end: counts whole lines and suggests slicing from the next', async () => {
    const { header, preview, read } = await spilled(log);
    const lines = preview.split('\n').length;
    expect(log.startsWith(`${preview}\n`)).toBe(true);
    expect(header).toContain(`(${lines} lines)`);
    expect(header).toContain(`"op":"slice","start":${lines + 1},"end":${lines + 200}}`);
    const slice = await read({ op: 'slice', start: lines + 1, end: lines + 1 });
    expect(slice.text).toContain(`INFO request ${lines} served`);
  });

  it.each([
    ['a\nb\n', 'a\nb\nc', 2, false],
    ['a\nb', 'a\nb\nc', 2, false],
    ['a\nb', 'a\nbc', 2, true],
    ['a\nb', 'a\nb', 2, false],
    ['a\nb', undefined, 2, undefined],
  ])('startPreview(%j) of %j: %d lines, the last cut: %s', (text, source, lines, cut) => {
    const preview = startPreview({ text, tokens: 1 }, source);
    expect(preview.lines).toBe(lines);
    expect(preview.lastLineCut).toBe(cut);
  });
});

describe("the header's example query runs on the result", () => {
  const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, title: `item number ${i} with a few words` }));
  it.each([
    ['a top-level array', items(400), 'size()', 400],
    ['{results: […]}', { total: 400, results: items(400) }, '.results | size()', 400],
    ['a key to quote', { meta: { page: 1 }, 'the rows': items(300), other: items(5) }, '."the rows" | size()', 300],
  ])('%s', async (_name, value, query, size) => {
    const { header, read } = await spilled(JSON.stringify(value));
    expect(header).toContain(`"op":"query","query":${JSON.stringify(query)}}`);
    const answer = await read({ op: 'query', query });
    expect(answer.isError).toBe(false);
    expect(answer.text).toBe(`Query ${JSON.stringify(query)}:\n${size}`);
  });

  it('none when the result has no array to count', async () => {
    const value = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`key${i}`, `value number ${i}`]));
    const { header } = await spilled(JSON.stringify(value));
    expect(header).not.toContain('"op":"query"');
    expect(header).toContain('"op":"stat"');
  });
});

describe('a kept copy with personal data masked says so', () => {
  it('in the header of a spilled result, above its preview', () => {
    const delivered: CallToolResult = {
      content: [
        { type: 'text', text: '[Spillway] Result too large…\nOps: stat.\n---\n{"contact": "person-0@example.org"}' },
        { type: 'resource_link', uri: 'spillway://spill/h', name: 'spill-h' },
      ],
    };
    const noted = textOf(noteMaskedCopy(delivered));
    expect(noted).toMatch(
      /^\[Spillway\] Result too large…\nOps: stat\.\nPersonal data in the kept copy is masked: read_result shows placeholders [^\n]*\n---\n\{"contact"/,
    );
    expect(noteMaskedCopy(delivered).content[1]).toBe(delivered.content[1]);
  });

  it('at the end of a compressed result', () => {
    const noted = textOf(noteMaskedCopy(textResult('[Compressed: 3 items]\nperson-0@example.org')));
    expect(noted).toMatch(/^\[Compressed: 3 items\]\nperson-0@example\.org\n\[Spillway\] Personal data in the kept copy is masked/);
  });
});

import * as fs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import * as cl100kEncoder from 'gpt-tokenizer/encoding/cl100k_base';
import { pieceBoundary, splitLongRuns } from '../../electron/core/tokens/text-cuts.js';
import { readTiktokenRanks } from '../../electron/core/tokens/tiktoken-ranks.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';

const { encode } = o200k;
const run = promisify(execFile);
const AS_TEXT = { disallowedSpecial: new Set<string>() };

const counter = new TokenCounter();
const cl100k = new TokenCounter({ encoding: 'cl100k_base' });
afterAll(async () => {
  await counter.close();
  await cl100k.close();
});

/** Text of exactly `n` o200k tokens: " word" is one token each. */
function tokensOf(n: number): string {
  return ' word'.repeat(n);
}

describe('TokenCounter.isWithin / countWithin', () => {
  const cases: Array<[string, string, number, boolean]> = [
    ['empty', '', 0, true],
    ['under', tokensOf(99), 100, true],
    ['exactly at', tokensOf(100), 100, true],
    ['one over', tokensOf(101), 100, false],
    ['far over', tokensOf(100_000), 100, false],
    // CJK: 1 char = 3 UTF-8 bytes, so the size shortcut cannot answer; tokens are fewer than bytes.
    ['CJK under', '漢字のテキスト'.repeat(10), 200, true],
    ['CJK over', '漢字のテキスト'.repeat(200), 200, false],
    ['emoji over', '🎉🚀👍🏽'.repeat(100), 50, false],
    ['negative limit', 'x', -1, false],
  ];
  it.each(cases)('%s', async (_name, text, limit, expected) => {
    expect(await counter.isWithin(text, limit)).toBe(expected);
    const count = await counter.countWithin(text, limit);
    expect(count !== false).toBe(expected);
  });

  it('returns the exact count when within', async () => {
    expect(await counter.countWithin(tokensOf(100), 100)).toBe(100);
    expect(await counter.count(tokensOf(100))).toBe(100);
  });

  it('answers by byte size alone when it can (a token is at least one byte)', () => {
    expect(TokenCounter.surelyWithin('abc', 3)).toBe(true);
    expect(TokenCounter.surelyWithin('漢', 3)).toBe(true);
    expect(TokenCounter.surelyWithin('漢漢', 3)).toBe(false);
    expect(TokenCounter.surelyWithin('abcd', 3)).toBe(false);
  });
});

describe('TokenCounter.count', () => {
  it('counts characters and tokens differently for CJK and emoji', async () => {
    const cjk = '東京都の天気は晴れです。明日は雨が降るでしょう。';
    const emoji = '👨‍👩‍👧‍👦🎉🚀👍🏽';
    for (const text of [cjk, emoji]) {
      const tokens = await counter.count(text);
      expect(tokens).toBe(encode(text).length);
      expect(tokens).not.toBe(text.length);
      expect(tokens).toBeLessThanOrEqual(Buffer.byteLength(text));
    }
  });

  it('counts 0 for the empty string', async () => {
    expect(await counter.count('')).toBe(0);
    expect(await counter.countExactOffThread('')).toEqual({ tokens: 0, estimated: false });
  });

  it('counts <|endoftext|> and other special tokens as plain text, never throwing', async () => {
    const text = 'log line <|endoftext|> then <|im_start|>system<|im_end|> and <|fim_prefix|>';
    const tokens = await counter.count(text);
    expect(tokens).toBeGreaterThan(10); // as text it is several tokens, not one special token each
    expect(await counter.isWithin(text.repeat(100), 10)).toBe(false);
    expect(await counter.truncateToTokens(text.repeat(100), 20)).not.toBe('');
    expect(await cl100k.count(text)).toBeGreaterThan(10);
    expect(await counter.countExactOffThread(text)).toEqual({ tokens, estimated: false });
  });

  it('differs between o200k_base and cl100k_base', async () => {
    const text = 'Привет, мир! Это пример текста для подсчёта токенов. '.repeat(20);
    const o200k = await counter.count(text);
    const cl = await cl100k.count(text);
    expect(cl).not.toBe(o200k);
    expect(cl100k.encoding).toBe('cl100k_base');
    expect(counter.encoding).toBe('o200k_base');
  });
});

describe('TokenCounter.countExactOffThread', () => {
  it('matches the in-thread count (worker thread, same encoder)', async () => {
    const texts = [
      'hello world',
      '{"items":[' + Array.from({ length: 2000 }, (_, i) => `{"id":${i},"name":"item ${i}","tags":["a","b"]}`).join(',') + ']}',
      '漢字とカタカナ、ひらがな。🎉 emoji 👍🏽 mixed with English text.\n'.repeat(500),
      'ERROR 2024-01-01T00:00:00Z <|endoftext|> something failed at line 42\n'.repeat(300),
    ];
    for (const text of texts) {
      const off = await counter.countExactOffThread(text);
      expect(off).toEqual({ tokens: await counter.count(text), estimated: false });
    }
    // cl100k worker too
    expect((await cl100k.countExactOffThread(texts[1]!)).tokens).toBe(await cl100k.count(texts[1]!));
  });

  it('serves concurrent requests from one worker', async () => {
    const texts = Array.from({ length: 20 }, (_, i) => `line ${i} `.repeat(i * 50 + 1));
    const results = await Promise.all(texts.map((t) => counter.countExactOffThread(t)));
    for (let i = 0; i < texts.length; i++) expect(results[i]!.tokens).toBe(await counter.count(texts[i]!));
  });

  it('estimates above the size limit from the density of a prefix, marked estimated', async () => {
    const small = new TokenCounter({ offThreadExactLimitBytes: 100_000, estimatePrefixChars: 20_000 });
    try {
      const text = 'The quick brown fox jumps over the lazy dog; 12345 ERROR at /var/log/app.log\n'.repeat(10_000);
      const exact = await counter.count(text);
      const estimate = await small.countExactOffThread(text);
      expect(estimate.estimated).toBe(true);
      expect(Math.abs(estimate.tokens - exact) / exact).toBeLessThan(0.02);
    } finally {
      await small.close();
    }
  });

  it('can be restarted after close', async () => {
    const c = new TokenCounter();
    expect((await c.countExactOffThread('a b c')).tokens).toBe(3);
    await c.close();
    expect((await c.countExactOffThread('a b c d')).tokens).toBe(4);
    await c.close();
  });
});

describe('TokenCounter.quickCount', () => {
  it('is exact for small texts and an estimate for large ones', async () => {
    const c = new TokenCounter({ quickExactLimitBytes: 1000, estimatePrefixChars: 500 });
    expect(await c.quickCount(tokensOf(50))).toEqual({ tokens: 50, estimated: false });
    const big = await c.quickCount(tokensOf(5000));
    expect(big.estimated).toBe(true);
    expect(Math.abs(big.tokens - 5000)).toBeLessThan(50);
  });
});

describe('TokenCounter.truncateToTokens', () => {
  const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1}: some log text with a few words`).join('\n');

  it('returns short texts unchanged and empty for a zero budget', async () => {
    expect(await counter.truncateToTokens('short text', 100)).toBe('short text');
    expect(await counter.truncateToTokens('', 100)).toBe('');
    expect(await counter.truncateToTokens('short text', 0)).toBe('');
  });

  it.each([20, 57, 100, 333, 1000])('cuts at a line boundary within %i tokens', async (max) => {
    const cut = await counter.truncateToTokens(lines, max);
    expect(lines.startsWith(cut)).toBe(true);
    expect(await counter.count(cut)).toBeLessThanOrEqual(max);
    expect(cut.length).toBeGreaterThan(0);
    expect(lines[cut.length]).toBe('\n'); // ends right before a line break
    // and it is the longest such line-prefix: one more line would not fit
    const nextBreak = lines.indexOf('\n', cut.length + 1);
    const longer = nextBreak === -1 ? lines : lines.slice(0, nextBreak);
    expect(await counter.count(longer)).toBeGreaterThan(max);
  });

  it('cuts mid-line when one line is longer than the budget, never inside a character', async () => {
    const oneLine = '🎉漢字'.repeat(2000);
    const cut = await counter.truncateToTokens(oneLine, 100);
    expect(oneLine.startsWith(cut)).toBe(true);
    expect(await counter.count(cut)).toBeLessThanOrEqual(100);
    expect(await counter.count(cut)).toBeGreaterThan(80);
    expect(cut).not.toMatch(/[\ud800-\udbff]$/); // no lone high surrogate at the end
  });

  it('keeps its budget after an earlier cut ended inside a character', async () => {
    // Two tokens of this end inside 🚀 (four UTF-8 bytes over more than one token).
    const first = await counter.truncateToTokens('alpha 🚀 beta 🚀 gamma '.repeat(3), 2);
    expect(first.length).toBeLessThanOrEqual(6);
    const text = Array.from({ length: 400 }, (_, i) => `${i} alpha 🚀 beta 🚀 gamma 🚀 delta 日本語 line`).join('\n');
    const cut = await counter.truncateToTokens(text, 500);
    expect(text.startsWith(cut)).toBe(true);
    expect(await counter.count(cut)).toBeLessThanOrEqual(500);
    expect(await counter.count(cut)).toBeGreaterThan(450);
  });

  it('keeps a minified JSON cut token-accurate', async () => {
    const json = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ id: i, v: `value-${i}` })));
    const cut = await counter.truncateToTokens(json, 1000);
    const tokens = await counter.count(cut);
    expect(tokens).toBeLessThanOrEqual(1000);
    expect(tokens).toBeGreaterThan(990);
  });
});

describe('TokenCounter.survey', () => {
  const log = Array.from({ length: 8_000 }, (_, i) => `2024-01-01 INFO request ${i} took ${(i * 7919) % 997} ms for /api/items/${i}`).join('\n');
  // Sends only a prefix of long texts: above 1000 bytes a sample of at most 40,000 characters.
  const small = new TokenCounter({ quickExactLimitBytes: 1000, estimatePrefixChars: 40_000 });
  afterAll(() => small.close());

  it('gives the exact count of a text within the limit', async () => {
    expect(await counter.survey(tokensOf(99), 100)).toEqual({ within: 99, sample: { chars: 99 * 5, tokens: 99 } });
    const exact = o200k.countTokens(log, AS_TEXT);
    expect((await small.survey(log, exact)).within).toBe(exact);
    expect((await small.survey(log, exact - 1)).within).toBe(false);
  });

  it('counts a short text over the limit whole, and cuts its preview as truncateToTokens does', async () => {
    const text = log.slice(0, 20_000);
    const survey = await counter.survey(text, 100, { previewTokens: 333 });
    expect(survey.within).toBe(false);
    expect(survey.sample).toEqual({ chars: text.length, tokens: o200k.countTokens(text, AS_TEXT) });
    expect(survey.preview!.text).toBe(await counter.truncateToTokens(text, 333));
    expect(survey.preview!.tokens).toBe(o200k.countTokens(survey.preview!.text, AS_TEXT));
  });

  it('samples a long text only until it is past the limit, exactly as its start counts', async () => {
    const survey = await small.survey(log, 5_000, { previewTokens: 50 });
    expect(survey.within).toBe(false);
    expect(survey.sample.tokens).toBeGreaterThan(5_000);
    expect(survey.sample.chars).toBeGreaterThanOrEqual(16 * 1024);
    expect(survey.sample.chars).toBeLessThan(40_000);
    expect(survey.sample.tokens).toBe(o200k.countTokens(log.slice(0, survey.sample.chars), AS_TEXT));
    expect(survey.preview).toEqual({ text: await small.truncateToTokens(log, 50), tokens: o200k.countTokens(survey.preview!.text, AS_TEXT) });
  });

  it('answers for a long text with nowhere to cut it (no spaces, no lines)', async () => {
    const dense = 'a1+/'.repeat(30_000);
    const exact = o200k.countTokens(dense, AS_TEXT);
    expect((await small.survey(dense, exact)).within).toBe(exact);
    const over = await small.survey(dense, 100);
    expect(over.within).toBe(false);
    expect(over.sample.tokens).toBe(o200k.countTokens(dense.slice(0, over.sample.chars), AS_TEXT));
  });

  it('counts the prefix it cuts (cutToTokens), in the same question', async () => {
    const cut = await counter.cutToTokens(log, 1_000);
    expect(cut.text).toBe(await counter.truncateToTokens(log, 1_000));
    expect(cut.tokens).toBe(o200k.countTokens(cut.text, AS_TEXT));
    expect(await counter.cutToTokens('short text', 100)).toEqual({ text: 'short text', tokens: 2 });
    expect(await counter.cutToTokens('short text', 0)).toEqual({ text: '', tokens: 0 });
  });
});

describe('the tokenizer thread', () => {
  const require = createRequire(import.meta.url);

  it.each(['o200k_base', 'cl100k_base'] as const)('reads the same %s ranks from the .tiktoken file as the generated module holds', (encoding) => {
    const expected = (require(`gpt-tokenizer/bpeRanks/${encoding}`) as { default: Array<string | number[]> }).default;
    const ranks = readTiktokenRanks(require.resolve(`gpt-tokenizer/data/${encoding}.tiktoken`), fs);
    expect(ranks.length).toBe(expected.length);
    for (let i = 0; i < expected.length; i++) {
      if (!(i in expected)) expect(i in ranks).toBe(false);
      else if (typeof expected[i] === 'string') expect(ranks[i]).toBe(expected[i]);
      else expect(ranks[i]).toEqual(expected[i]);
    }
  });

  it('counts a text cut where pieces break as the sum of its parts (random texts, both encodings)', () => {
    const encoders = [o200k, cl100kEncoder];
    const alphabet = [
      'a',
      'Zq',
      ' ',
      '  ',
      '\n',
      '\n\n',
      '\r\n',
      ' \n',
      '\t',
      '.',
      '/',
      '//',
      "'s",
      "'",
      '"',
      ',',
      ':',
      '{',
      '}',
      '1',
      '23',
      '4567',
      'é',
      'e\u0301',
      '日本',
      '🚀',
      '<|endoftext|>',
      '—',
      '\u00a0',
      '\u3000',
      'Hello',
      '-',
      '\n/',
      '.\n',
      '\n ',
      '\n\t',
    ];
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    let checked = 0;
    for (let round = 0; round < 1500; round++) {
      let text = '';
      for (let i = 50 + random(300); i > 0; i--) text += alphabet[random(alphabet.length)];
      const at = pieceBoundary(text, 1, text.length);
      if (at < 0) continue;
      for (const e of encoders) {
        expect(e.countTokens(text.slice(0, at), AS_TEXT) + e.countTokens(text.slice(at), AS_TEXT)).toBe(e.countTokens(text, AS_TEXT));
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('answers limit questions on long texts window by window, as on the whole text', async () => {
    const log = Array.from(
      { length: 20_000 },
      (_, i) => `2024-01-01T00:00:${i % 60}Z INFO request ${i} took ${(i * 7919) % 997} ms for /api/items/${i}`,
    ).join('\n');
    const exact = o200k.countTokens(log, AS_TEXT);
    expect(await counter.countWithin(log, exact)).toBe(exact);
    expect(await counter.countWithin(log, exact - 1)).toBe(false);
    expect(await counter.isWithin(log, 5_000)).toBe(false);
    const cut = await counter.truncateToTokens(log, 1_000);
    expect(log.startsWith(cut)).toBe(true);
    expect(o200k.countTokens(cut, AS_TEXT)).toBeLessThanOrEqual(1_000);
    expect(log[cut.length]).toBe('\n');
    expect(o200k.countTokens(log.slice(0, log.indexOf('\n', cut.length + 1)), AS_TEXT)).toBeGreaterThan(1_000);
  });

  it('counts a file it reads itself: exact, or its start scaled above the size limit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tokens-'));
    try {
      const text = '漢字とカタカナ 🎉 and English words, a JSON {"id": 1}\n'.repeat(40_000);
      const path = join(dir, 'text.txt');
      await writeFile(path, text);
      expect(await counter.countFileOffThread(path)).toEqual({ tokens: o200k.countTokens(text, AS_TEXT), estimated: false });
      const small = new TokenCounter({ offThreadExactLimitBytes: 100_000 });
      try {
        const estimate = await small.countFileOffThread(path);
        expect(estimate.estimated).toBe(true);
        expect(Math.abs(estimate.tokens - o200k.countTokens(text, AS_TEXT)) / estimate.tokens).toBeLessThan(0.01);
      } finally {
        await small.close();
      }
      await expect(counter.countFileOffThread(join(dir, 'missing.txt'))).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('counts long runs of one kind of character in parts (the merge is quadratic in a piece), close to the encoder', async () => {
    // Unsplit, 400,000 `a`s would keep the thread busy for minutes (160,000 took 13.5 s).
    expect(await counter.count('a'.repeat(400_000))).toBe(50_000);
    const hash = Array.from({ length: 4_000 }, (_, i) => 'abcdefghijklmnopqrstuvwxyz'[(i * 7919) % 26]).join('');
    const exact = encode(hash, AS_TEXT).length;
    expect(Math.abs((await counter.count(hash)) - exact)).toBeLessThanOrEqual(Math.ceil(hash.length / 128));
    const cut = await counter.cutToTokens(`${'b'.repeat(300_000)} tail`, 10);
    expect(cut.tokens).toBeLessThanOrEqual(10);
    expect(cut.text).toMatch(/^b+$/);
  });

  it('splits only runs past the limit, never inside a surrogate pair, and the parts join to the text', () => {
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(100);
    expect(splitLongRuns(prose, 128)).toBeUndefined();
    const text = `start ${'x'.repeat(300)} mid ${'\u{1F600}'.repeat(200)} ${' '.repeat(260)}end`;
    const parts = splitLongRuns(text, 128)!;
    expect(parts.join('')).toBe(text);
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts) {
      expect(/[\ud800-\udbff]$/.test(part)).toBe(false);
      expect(part).not.toMatch(/x{129}| {129}/);
    }
  });

  it('answers the request path while a long bookkeeping count runs', async () => {
    const order: string[] = [];
    const long = 'The quick brown fox jumps over the lazy dog 0123456789\n'.repeat(100_000);
    await counter.count('warm up');
    const bookkeeping = counter.countExactOffThread(long).then(() => order.push('bookkeeping'));
    const request = counter.countWithin(long, 100).then(() => order.push('request'));
    await Promise.all([bookkeeping, request]);
    expect(order).toEqual(['request', 'bookkeeping']);
  });

  it('holds bookkeeping back while request-path questions keep coming, unless told to hurry', async () => {
    const question = 'The quick brown fox jumps over the lazy dog 0123456789\n'.repeat(1_000);
    const run = async (c: TokenCounter, hurry: boolean): Promise<number> => {
      const order: string[] = [];
      await c.count('warm up');
      if (hurry) c.hurry();
      const bookkeeping = c.countExactOffThread('a small text for the ledger').then(() => order.push('bookkeeping'));
      // Longer in all than the small-count batching delay (20 ms): unheld, the count lands among these.
      for (let i = 0; i < 40; i++) {
        await c.count(question);
        order.push('question');
      }
      await bookkeeping;
      return order.indexOf('bookkeeping');
    };
    // A quiet time of a second rather than 200 ms: a stall of the test's own thread between two questions
    // (a busy machine) must not pass for the calls having stopped.
    const held = new TokenCounter({ quietMs: 1_000 });
    const hurried = new TokenCounter({ quietMs: 1_000 });
    try {
      expect(await run(held, false)).toBe(40);
      expect(await run(hurried, true)).toBeLessThan(40);
    } finally {
      await held.close();
      await hurried.close();
    }
  });

  it('counts a start and cuts its preview in one question, as countStart and cutToTokens do', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.\n'.repeat(5_000);
    const start = text.slice(0, text.lastIndexOf('\n', 100_000) + 1);
    const both = counter.countStartAndCut(text, start, 500);
    expect(await both.sample).toEqual(await counter.countStart(text));
    expect(await both.cut).toEqual(await counter.cutToTokens(start, 500));
    const none = counter.countStartAndCut('', '', 0);
    expect(await none.sample).toEqual({ chars: 0, tokens: 0 });
    expect(await none.cut).toEqual({ text: '', tokens: 0 });
  });

  it('runs from TypeScript sources loaded through tsx (whose functions call a __name helper)', async () => {
    const script = `const { TokenCounter } = await import('./electron/core/tokens/token-counter.ts');
      const c = new TokenCounter();
      console.log(await c.count('a b c'), (await c.survey('word '.repeat(50), 10, { previewTokens: 3 })).preview.tokens);
      await c.close();`;
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root });
    expect(stdout.trim()).toBe('3 3');
  });

  it('is not started for what sizes answer, and is stopped when idle, then started again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const c = new TokenCounter({ workerIdleMs: 1_000 });
    try {
      expect(await c.isWithin('short', 100)).toBe(true);
      expect(await c.truncateToTokens('short', 100)).toBe('short');
      expect(c.loaded).toBe(false);
      expect(await c.count('a b c')).toBe(3);
      expect(c.loaded).toBe(true);
      vi.advanceTimersByTime(999);
      expect(c.loaded).toBe(true);
      vi.advanceTimersByTime(1);
      expect(c.loaded).toBe(false);
      expect(await c.count('a b c d')).toBe(4);
      expect(c.loaded).toBe(true);
    } finally {
      vi.useRealTimers();
      await c.close();
    }
  });
});

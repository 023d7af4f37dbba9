import { afterAll, describe, expect, it } from 'vitest';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';

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

  it('keeps a minified JSON cut token-accurate', async () => {
    const json = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ id: i, v: `value-${i}` })));
    const cut = await counter.truncateToTokens(json, 1000);
    const tokens = await counter.count(cut);
    expect(tokens).toBeLessThanOrEqual(1000);
    expect(tokens).toBeGreaterThan(990);
  });
});

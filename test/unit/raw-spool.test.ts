import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_START_BYTES, RawMessageSpool, type RawSpoolOptions, type SpooledString } from '../../electron/core/wire/raw-spool.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spillway-raw-spool-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Deterministic PRNG (mulberry32), so a failing seed can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rand, items: readonly T[]): T => items[Math.floor(r() * items.length)];

/** Pieces of text that exercise every escape kind and every UTF-8 length. */
const ATOMS = [
  'plain ascii words ',
  'x',
  '\n',
  '\r\n',
  '\t',
  '"',
  '\\',
  '/',
  '\b',
  '\f',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0080',
  'é',
  '\u07ff',
  '\u0800',
  '日本語のテキスト',
  '한국어',
  '\u2028\u2029',
  '\uffff',
  '\ufeff',
  '🚀',
  '👨‍👩‍👧',
  '\u{10ffff}',
  '\ud800', // lone high surrogate
  '\udc00', // lone low surrogate
  '\udbff\udbff', // two highs
  '\udfff\ud800', // low then high (not a pair)
] as const;

function randomText(r: Rand, targetLength: number): string {
  let s = '';
  while (s.length < targetLength) {
    const roll = r();
    if (roll < 0.5) s += pick(r, ATOMS);
    else if (roll < 0.8) s += 'abcdefghijklmnopqrstuvwxyz0123456789 '.slice(int(r, 0, 30), int(r, 31, 37));
    else s += String.fromCharCode(int(r, 0, 0xffff));
  }
  return s;
}

/** A JSON string literal written the way an unusual encoder might: \u escapes (either hex case), \/ and raw UTF-8 mixed. */
function handWrittenLiteral(r: Rand, text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const units = ch.length === 2 ? [ch.charCodeAt(0), ch.charCodeAt(1)] : [code];
    const hex = (u: number) => {
      const h = u.toString(16).padStart(4, '0');
      return `\\u${r() < 0.5 ? h : h.toUpperCase()}`;
    };
    if (ch === '"') {
      out += r() < 0.5 ? '\\"' : hex(code);
    } else if (ch === '\\') {
      out += r() < 0.5 ? '\\\\' : hex(code);
    } else if (ch === '/') {
      out += r() < 0.5 ? '\\/' : '/';
    } else if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff)) {
      const escaped = JSON.stringify(ch).slice(1, -1);
      out += escaped.replace(/\\u[0-9a-f]{4}/g, (m) => (r() < 0.5 ? m : `\\u${m.slice(2).toUpperCase()}`));
    } else {
      out += r() < 0.2 ? units.map(hex).join('') : ch;
    }
  }
  return `${out}"`;
}

/** A random JSON text with short and long strings (keys too), nested objects and arrays. */
function randomMessage(r: Rand, longBytes: number, depth = 0): string {
  const value = (): string => {
    const roll = r();
    if (depth < 4 && roll < 0.2) return randomMessage(r, longBytes, depth + 1);
    if (depth < 4 && roll < 0.35) {
      const items = Array.from({ length: int(r, 0, 4) }, () => randomMessageValue(r, longBytes, depth + 1));
      return `[${items.join(',')}]`;
    }
    return randomMessageValue(r, longBytes, depth + 1);
  };
  const members: string[] = [];
  const used = new Set<string>();
  for (let n = int(r, 0, 5); n > 0; n--) {
    const key = r() < 0.08 ? randomText(r, int(r, longBytes - 4, longBytes * 3)) : randomText(r, int(r, 0, 8));
    if (used.has(key) || key === '__proto__') continue;
    used.add(key);
    const keyLiteral = r() < 0.3 ? handWrittenLiteral(r, key) : JSON.stringify(key);
    members.push(`${keyLiteral}${pick(r, ['', ' '])}:${pick(r, ['', ' ', '\t'])}${value()}`);
  }
  return `{${members.join(pick(r, [',', ', ', ',\r\n ']))}}`;
}

function randomMessageValue(r: Rand, longBytes: number, depth: number): string {
  const roll = r();
  if (roll < 0.1) return pick(r, ['true', 'false', 'null', '0', '-12.5e3', '123456789']);
  if (depth < 4 && roll < 0.2) return randomMessage(r, longBytes, depth);
  const length = r() < 0.45 ? int(r, longBytes - 8, longBytes * 6) : int(r, 0, 12);
  const text = randomText(r, length);
  return r() < 0.35 ? handWrittenLiteral(r, text) : JSON.stringify(text);
}

/** Cuts `bytes` into random pieces: often single bytes, sometimes large slices. */
function randomPieces(r: Rand, bytes: Buffer): Buffer[] {
  const mode = int(r, 0, 3);
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length;) {
    const size = mode === 0 ? 1 : mode === 1 ? int(r, 1, 7) : mode === 2 ? int(r, 1, 200) : int(r, 1, 5000);
    // A fresh copy each time: the spool may keep views, the test must not depend on sharing.
    pieces.push(Buffer.from(bytes.subarray(i, i + size)));
    i += size;
  }
  return pieces;
}

interface Span {
  /** Index of the opening quote. */
  start: number;
  /** Index just after the closing quote. */
  end: number;
}

/** Reference: every string literal of a JSON text, by a plain non-streaming scan. */
function literalSpans(bytes: Buffer): Span[] {
  const spans: Span[] = [];
  let start = -1;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (start < 0) {
      if (c === 0x22) start = i;
    } else if (c === 0x5c) {
      i++;
    } else if (c === 0x22) {
      spans.push({ start, end: i + 1 });
      start = -1;
    }
  }
  return spans;
}

/**
 * Replaces every placeholder (in keys and values) by the text of its file, and makes every string
 * well-formed (lone surrogates -> U+FFFD), since that is what a UTF-8 file can hold.
 */
function resolve(value: unknown, texts: Map<string, string> = new Map()): unknown {
  const str = (s: string) => (texts.has(s) ? texts.get(s)! : Buffer.from(s, 'utf8').toString('utf8'));
  if (typeof value === 'string') return str(value);
  if (Array.isArray(value)) return value.map((v) => resolve(v, texts));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[str(k)] = resolve(v, texts);
    return out;
  }
  return value;
}

function spool(options: Partial<RawSpoolOptions> = {}) {
  return new RawMessageSpool({ dir, ...options });
}

function counterPlaceholders() {
  let n = 0;
  return () => `\u0000ph-${++n}`;
}

/** Checks everything about one spooled run of a valid JSON message against the reference scan. */
async function checkMessage(message: Buffer, pieces: Buffer[], options: { minStringBytes: number; headBytes: number }, label: string) {
  const heads = new Map<string, Buffer[]>();
  const onHead = (placeholder: string, head: Buffer) => heads.set(placeholder, [...(heads.get(placeholder) ?? []), Buffer.from(head)]);
  const s = spool({ ...options, newPlaceholder: counterPlaceholders(), onHead });
  for (const piece of pieces) s.push(piece);
  const { skeleton, strings, totalBytes, written } = s.finish();
  await written;
  expect(totalBytes, label).toBe(message.length);

  const long = literalSpans(message).filter((span) => span.end - span.start - 2 > options.minStringBytes);
  expect(strings.length, label).toBe(long.length);

  // Byte for byte: the original with exactly the long literals replaced by their placeholders' literals.
  const expected: Buffer[] = [];
  let at = 0;
  long.forEach((span, k) => {
    expected.push(message.subarray(at, span.start), Buffer.from(JSON.stringify(strings[k].placeholder)));
    at = span.end;
  });
  expected.push(message.subarray(at));
  expect(skeleton, label).toBe(Buffer.concat(expected).toString('utf8'));

  const texts = new Map<string, string>();
  long.forEach((span, k) => {
    const spooled: SpooledString = strings[k];
    const literal = message.subarray(span.start, span.end).toString('utf8');
    const want = Buffer.from(JSON.parse(literal) as string, 'utf8');
    const file = readFileSync(spooled.path);
    expect(file.equals(want), `${label}: file ${k}`).toBe(true);
    expect(spooled.bytes, label).toBe(want.length);
    expect(spooled.escapedBytes, label).toBe(span.end - span.start - 2);
    expect(spooled.newlines, label).toBe(want.reduce((n, b) => (b === 0x0a ? n + 1 : n), 0));
    expect(spooled.sha256.equals(createHash('sha256').update(want).digest()), label).toBe(true);
    expect(spooled.head.equals(want.subarray(0, options.headBytes)), `${label}: head ${k}`).toBe(true);
    // Heard of once, when its start (at most the head) has arrived: the same bytes.
    const startBytes = Math.min(options.headBytes, DEFAULT_START_BYTES);
    const heard = heads.get(spooled.placeholder) ?? [];
    expect(heard, `${label}: onHead ${k}`).toHaveLength(startBytes > 0 && want.length >= startBytes ? 1 : 0);
    if (heard.length > 0) expect(heard[0]!.equals(want.subarray(0, startBytes)), `${label}: onHead ${k}`).toBe(true);
    expect(spooled.tail.equals(want.subarray(Math.max(0, want.length - 1024))), `${label}: tail ${k}`).toBe(true);
    expect(statSync(spooled.path).mode & 0o777).toBe(0o600);
    texts.set(spooled.placeholder, file.toString('utf8'));
  });
  expect(resolve(JSON.parse(skeleton), texts), label).toEqual(resolve(JSON.parse(message.toString('utf8'))));
  expect(readdirSync(dir).sort(), label).toEqual(strings.map((x) => x.path.slice(dir.length + 1)).sort());
  await s.abort();
  expect(readdirSync(dir), label).toEqual([]);
}

describe('RawMessageSpool', () => {
  it('round-trips random messages fed in random pieces (property test)', async () => {
    for (let seed = 1; seed <= 250; seed++) {
      const r = rng(seed);
      const minStringBytes = pick(r, [0, 1, 8, 40, 200]);
      const headBytes = pick(r, [0, 1, 7, 100, 256 * 1024]);
      const text = randomMessage(r, Math.max(minStringBytes, 4));
      const message = Buffer.from(text, 'utf8');
      await checkMessage(message, randomPieces(r, message), { minStringBytes, headBytes }, `seed ${seed}`);
    }
  });

  it('decodes every escape split at every byte position', async () => {
    const text = 'a\n"\\/\b\f\r\t\u0000\u001fé日🚀\ud800x\udc00\ud83d\ude80\ud83d\ud83d\ude80end';
    const literals = [JSON.stringify(text), '"a\\nb\\/\\u00E9\\u65e5\\uD83D\\uDE80\\ud800\\u0041\\udbff\\udfff\\uDC00\\ud800"'];
    for (const literal of literals) {
      const message = Buffer.from(`{"k":${literal},"n":1}`);
      for (let cut = 0; cut <= message.length; cut++) {
        await checkMessage(message, [message.subarray(0, cut), message.subarray(cut)], { minStringBytes: 4, headBytes: 5 }, `cut ${cut}`);
      }
      await checkMessage(
        message,
        [...message].map((b) => Buffer.from([b])),
        { minStringBytes: 4, headBytes: 5 },
        'bytewise',
      );
    }
  });

  it('keeps a string of exactly minStringBytes in the skeleton and spools one byte more', async () => {
    const min = 10;
    const exact = Buffer.from(`{"a":"${'x'.repeat(8)}\\n","b":"${'y'.repeat(9)}\\n"}`);
    const s = spool({ minStringBytes: min });
    s.push(exact);
    const { skeleton, strings, written } = s.finish();
    await written;
    expect(strings).toHaveLength(1);
    expect(strings[0].escapedBytes).toBe(11);
    expect(readFileSync(strings[0].path, 'utf8')).toBe(`${'y'.repeat(9)}\n`);
    expect(strings[0].placeholder[0]).toBe('\u0000');
    expect(strings[0].placeholder.slice(1)).toMatch(/^spillway-raw:[0-9a-f-]{36}$/);
    expect(skeleton).toBe(`{"a":"${'x'.repeat(8)}\\n","b":${JSON.stringify(strings[0].placeholder)}}`);
    await s.abort();
  });

  it('spools long keys as well as values', async () => {
    const key = 'k'.repeat(50);
    const message = Buffer.from(JSON.stringify({ [key]: 'short', other: 'v'.repeat(50) }));
    await checkMessage(message, [message], { minStringBytes: 20, headBytes: 10 }, 'keys');
  });

  it('returns the exact original text and makes no files when no string is long', async () => {
    const text = '{"result":{"content":[{"type":"text","text":"héllo 日本 🚀 \\"q\\" \\u00e9"}]},"jsonrpc":"2.0","id":5}';
    const message = Buffer.from(text);
    for (const size of [1, 3, 17, message.length]) {
      const s = spool();
      for (let i = 0; i < message.length; i += size) s.push(message.subarray(i, i + size));
      const { written, ...result } = s.finish();
      await written;
      expect(result).toEqual({ skeleton: text, strings: [], totalBytes: message.length });
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('handles a multi-megabyte tool result across several batches with default limits', async () => {
    const line = 'The quick brown fox jumps over the lazy dog. 日本語 🚀 "quoted" \\ back\tslash\n';
    const text = line.repeat(40_000); // ~3.6 MB of text, more when escaped
    const message = Buffer.from(JSON.stringify({ result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id: 5 }));
    const pieces: Buffer[] = [];
    for (let i = 0; i < message.length; i += 65_536) pieces.push(message.subarray(i, i + 65_536));
    await checkMessage(message, pieces, { minStringBytes: 64 * 1024, headBytes: 256 * 1024 }, 'big');
  });

  it('keeps multi-byte characters whole across 1 MiB write batches', async () => {
    // 1 MiB is not a multiple of 3, so batch boundaries fall inside characters.
    for (const unit of ['日', 'é日🚀', '日\\n']) {
      const text = unit.replace('\\n', '\n').repeat(Math.ceil(3_300_000 / Buffer.byteLength(unit)));
      const message = Buffer.from(JSON.stringify({ text }));
      const pieces: Buffer[] = [];
      for (let i = 0; i < message.length; i += 65_537) pieces.push(message.subarray(i, i + 65_537));
      await checkMessage(message, pieces, { minStringBytes: 64 * 1024, headBytes: 256 * 1024 }, unit);
    }
  });

  it('passes raw control characters inside a spooled string through (lenient) and counts raw newlines', async () => {
    // Not valid JSON; the line framer never passes a raw '\n', but counts must match the file regardless.
    const s = spool({ minStringBytes: 4 });
    s.push(Buffer.from('{"t":"ab\tc\nd\\ne\n'));
    s.push(Buffer.from(`${'x'.repeat(300)}\n"}`));
    const { strings, written } = s.finish();
    await written;
    expect(readFileSync(strings[0].path, 'utf8')).toBe(`ab\tc\nd\ne\n${'x'.repeat(300)}\n`);
    expect(strings[0].newlines).toBe(4);
    await s.abort();
  });

  it('handles a long string without escapes (base64-like) in odd-sized pieces', async () => {
    const text = Buffer.from(Uint8Array.from({ length: 2_500_000 }, (_, i) => (i * 2_654_435_761) >>> 24)).toString('base64');
    const message = Buffer.from(`{"jsonrpc":"2.0","id":"x","result":{"blob":"${text}"}}`);
    const pieces: Buffer[] = [];
    for (let i = 0, size = 1; i < message.length; i += size, size = (size * 7 + 3) % 100_003) pieces.push(message.subarray(i, i + size));
    await checkMessage(message, pieces, { minStringBytes: 64 * 1024, headBytes: 1000 }, 'base64');
  });

  it("tells of a long string's head while the rest of it is still arriving", async () => {
    const heard: string[] = [];
    const s = spool({ minStringBytes: 1024, headBytes: 1000, onHead: (_placeholder, head) => heard.push(head.toString('utf8')) });
    const text = 'line of text, and more of it\n'.repeat(10_000);
    const message = Buffer.from(JSON.stringify({ result: { content: [{ type: 'text', text }] } }));
    for (let at = 0; at < 100_000; at += 10_000) s.push(message.subarray(at, at + 10_000));
    expect(heard).toEqual([text.slice(0, 1000)]);
    s.push(message.subarray(100_000));
    await s.finish().written;
    expect(heard).toHaveLength(1);
    await s.abort();
  });

  it('replaces invalid UTF-8 inside a spooled string exactly as decoding the whole line would', async () => {
    const r = rng(99);
    for (let round = 0; round < 40; round++) {
      const parts: Buffer[] = [Buffer.from('{"t":"')];
      for (let n = 0; n < 300; n++) {
        const roll = r();
        if (roll < 0.3) parts.push(Buffer.from([int(r, 0x80, 0xff)]));
        else if (roll < 0.4)
          parts.push(Buffer.from([0xed, 0xa0, 0x80])); // an encoded surrogate
        else if (roll < 0.5)
          parts.push(Buffer.from('日🚀').subarray(0, int(r, 1, 6))); // a truncated char
        else if (roll < 0.6) parts.push(Buffer.from('\\n\\u00e9'));
        else parts.push(Buffer.from('abc日本'));
      }
      parts.push(Buffer.from('","n":1}'));
      const message = Buffer.concat(parts);
      const s = spool({ minStringBytes: 16, headBytes: 64 });
      for (const piece of randomPieces(r, message)) s.push(piece);
      const { skeleton, strings, written } = s.finish();
      await written;
      const want = Buffer.from((JSON.parse(message.toString('utf8')) as { t: string }).t, 'utf8');
      expect(strings).toHaveLength(1);
      expect(readFileSync(strings[0].path).equals(want), `round ${round}`).toBe(true);
      expect(strings[0].bytes).toBe(want.length);
      expect(strings[0].sha256.equals(createHash('sha256').update(want).digest())).toBe(true);
      expect(strings[0].head.equals(want.subarray(0, 64))).toBe(true);
      expect(JSON.parse(skeleton)).toEqual({ t: strings[0].placeholder, n: 1 });
      await s.abort();
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  describe('invalid input', () => {
    const invalid: Record<string, string> = {
      'truncated inside a long string': `{"result":{"text":"${'a'.repeat(200)}`,
      'truncated inside a long string after a backslash': `{"text":"${'a'.repeat(200)}\\`,
      'truncated inside a \\u escape': `{"text":"${'a'.repeat(200)}\\u12`,
      'truncated inside a short string': '{"text":"abc',
      'a bad escape in a long string': `{"text":"${'a'.repeat(200)}\\x"}`,
      'a bad \\u escape in a long string': `{"text":"${'a'.repeat(200)}\\u12G4"}`,
      'a \\u escape cut by the closing quote': `{"text":"${'a'.repeat(200)}\\u12"}`,
      'stray quotes': `{"a":"${'b'.repeat(100)}""c":"${'d'.repeat(100)}"}"`,
      'a bare long string after the message': `{} "${'x'.repeat(100)}"`,
    };
    for (const [name, text] of Object.entries(invalid)) {
      it(`${name}: never throws, the skeleton fails JSON.parse, abort() removes every file`, async () => {
        const message = Buffer.from(text);
        for (const size of [1, 2, 5, 64, message.length]) {
          const s = spool({ minStringBytes: 50, headBytes: 10 });
          for (let i = 0; i < message.length; i += size) s.push(message.subarray(i, i + size));
          const { skeleton, written } = s.finish();
          await written;
          expect(() => JSON.parse(skeleton), `${name} / ${size}`).toThrow(SyntaxError);
          await s.abort();
          expect(readdirSync(dir)).toEqual([]);
        }
      });
    }

    it('binary garbage: never throws, abort() leaves the folder empty', async () => {
      for (let seed = 1; seed <= 60; seed++) {
        const r = rng(seed * 7919);
        const garbage = Buffer.from(
          Uint8Array.from({ length: int(r, 0, 20_000) }, () => {
            const roll = r();
            return roll < 0.1 ? 0x22 : roll < 0.2 ? 0x5c : roll < 0.25 ? 0x75 : int(r, 0, 255);
          }),
        );
        const s = spool({ minStringBytes: int(r, 0, 64), headBytes: int(r, 0, 100) });
        for (const piece of randomPieces(r, garbage)) s.push(piece);
        const result = s.finish();
        await result.written.catch(() => undefined);
        await result.written;
        expect(result.totalBytes).toBe(garbage.length);
        await s.abort();
        expect(readdirSync(dir), `seed ${seed}`).toEqual([]);
      }
    });

    it('abort() in the middle of a long string closes and deletes its file', async () => {
      const s = spool({ minStringBytes: 10 });
      // The files are created off the main thread: seen once both are there.
      const created = new Promise<void>((resolve) => {
        let files = 0;
        const watcher = watch(dir, (event) => {
          if (event === 'rename' && ++files === 2) {
            watcher.close();
            resolve();
          }
        });
      });
      s.push(Buffer.from(`{"a":"${'z'.repeat(100)}","b":"${'y'.repeat(100)}`));
      await created;
      expect(readdirSync(dir)).toHaveLength(2);
      await s.abort();
      expect(readdirSync(dir)).toEqual([]);
      expect(() => s.push(Buffer.from('x'))).toThrow(/after finish\(\) or abort\(\)/);
    });
  });
});

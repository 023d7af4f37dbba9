import { afterAll, describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_MAX_MESSAGE_BYTES, LineFramer, OversizedMessageError, oversizedResponseId } from '../../electron/core/wire/line-framer.js';

function collect(maxMessageBytes?: number) {
  const messages: JSONRPCMessage[] = [];
  const noise: string[] = [];
  const errors: OversizedMessageError[] = [];
  const framer = new LineFramer({
    maxMessageBytes,
    onMessage: (m) => messages.push(m),
    onNoise: (l) => noise.push(l),
    onError: (e) => errors.push(e),
  });
  return { framer, messages, noise, errors };
}

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' } as const;
const result = { jsonrpc: '2.0', id: 'a', result: { content: [{ type: 'text', text: 'héllo 日本 🚀' }] } } as const;
const note = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 5 } } as const;

describe('LineFramer', () => {
  it('frames a stream split at every byte position, including inside multi-byte UTF-8', () => {
    const stream = Buffer.from([ping, result, note].map((m) => `${JSON.stringify(m)}\n`).join(''));
    for (let cut = 0; cut <= stream.length; cut++) {
      const { framer, messages, noise } = collect();
      framer.push(stream.subarray(0, cut));
      framer.push(stream.subarray(cut));
      expect(messages, `cut at ${cut}`).toEqual([ping, result, note]);
      expect(noise).toEqual([]);
    }
  });

  it('frames a stream fed one byte at a time', () => {
    const stream = Buffer.from(`${JSON.stringify(result)}\n${JSON.stringify(ping)}\n`);
    const { framer, messages } = collect();
    for (let i = 0; i < stream.length; i++) framer.push(stream.subarray(i, i + 1));
    expect(messages).toEqual([result, ping]);
  });

  it('decodes a 4-byte character split across three chunks', () => {
    const line = Buffer.from(`${JSON.stringify(result)}\n`);
    const rocket = line.indexOf(Buffer.from('🚀'));
    const { framer, messages } = collect();
    framer.push(line.subarray(0, rocket + 1));
    framer.push(line.subarray(rocket + 1, rocket + 3));
    framer.push(line.subarray(rocket + 3));
    expect(messages).toEqual([result]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])('accepts %s line endings', (_name, eol) => {
    const { framer, messages, noise } = collect();
    framer.push(Buffer.from(`${JSON.stringify(ping)}${eol}${JSON.stringify(note)}${eol}`));
    expect(messages).toEqual([ping, note]);
    expect(noise).toEqual([]);
  });

  it('skips blank lines silently', () => {
    const { framer, messages, noise } = collect();
    framer.push(Buffer.from(`\n\r\n   \n${JSON.stringify(ping)}\n\n`));
    expect(messages).toEqual([ping]);
    expect(noise).toEqual([]);
  });

  it.each([
    ['plain log text', 'Server listening on stdio...'],
    ['JSON that is not JSON-RPC', '{"level":"info","msg":"hello"}'],
    ['a JSON array', '[1,2,3]'],
    ['a JSON number', '42'],
    ['truncated JSON', '{"jsonrpc":"2.0","id":1,'],
    ['JSON-RPC with the wrong version', '{"jsonrpc":"1.0","id":1,"method":"ping"}'],
  ])('reports %s as noise and keeps going', (_name, garbage) => {
    const { framer, messages, noise } = collect();
    framer.push(Buffer.from(`${garbage}\n${JSON.stringify(ping)}\n${garbage}\r\n${JSON.stringify(note)}\n`));
    expect(messages).toEqual([ping, note]);
    expect(noise).toEqual([garbage, garbage]);
  });

  it('skips a message over the cap with an error, then frames the next one', () => {
    const big = { jsonrpc: '2.0', id: 7, result: { text: 'x'.repeat(5000) } };
    const { framer, messages, errors, noise } = collect(1000);
    const stream = Buffer.from(`${JSON.stringify(ping)}\n${JSON.stringify(big)}\n${JSON.stringify(note)}\n`);
    for (let i = 0; i < stream.length; i += 64) framer.push(stream.subarray(i, i + 64));
    expect(messages).toEqual([ping, note]);
    expect(noise).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(OversizedMessageError);
    expect(errors[0].bytes).toBe(JSON.stringify(big).length);
    expect(errors[0].limit).toBe(1000);
    expect(errors[0].message).toMatch(/exceeds the limit of 1000 bytes/);
    expect(framer.bufferedBytes).toBe(0);
  });

  it('skips an oversized message that arrives in one chunk together with good ones', () => {
    const { framer, messages, errors } = collect(100);
    framer.push(Buffer.from(`${'z'.repeat(500)}\n${JSON.stringify(ping)}\n`));
    expect(messages).toEqual([ping]);
    expect(errors.map((e) => e.bytes)).toEqual([500]);
  });

  it('accepts a message of exactly the cap', () => {
    const line = JSON.stringify(ping);
    const { framer, messages, errors } = collect(Buffer.byteLength(line));
    framer.push(Buffer.from(`${line}\n`));
    expect(messages).toEqual([ping]);
    expect(errors).toEqual([]);
  });

  it('delivers a last line without a newline at end of stream', () => {
    const { framer, messages } = collect();
    framer.push(Buffer.from(`${JSON.stringify(ping)}\n${JSON.stringify(note)}`));
    expect(messages).toEqual([ping]);
    framer.end();
    expect(messages).toEqual([ping, note]);
  });

  it('reset drops a partial line', () => {
    const { framer, messages, noise } = collect();
    framer.push(Buffer.from('{"jsonrpc":"2.0",'));
    framer.reset();
    framer.push(Buffer.from(`${JSON.stringify(ping)}\n`));
    expect(messages).toEqual([ping]);
    expect(noise).toEqual([]);
  });

  it('frames a 20 MB message split into 64 KiB chunks', () => {
    const unit = 'log line ✓ 日本語 🚀 ';
    const text = unit.repeat(Math.ceil((20 * 1024 * 1024) / Buffer.byteLength(unit)));
    const big = { jsonrpc: '2.0', id: 99, result: { content: [{ type: 'text', text }] } };
    const stream = Buffer.from(`${JSON.stringify(ping)}\n${JSON.stringify(big)}\n${JSON.stringify(note)}\n`);
    expect(stream.length).toBeGreaterThan(20 * 1024 * 1024);
    const { framer, messages, errors, noise } = collect();
    for (let i = 0; i < stream.length; i += 65536) framer.push(stream.subarray(i, i + 65536));
    expect(errors).toEqual([]);
    expect(noise).toEqual([]);
    expect(messages).toHaveLength(3);
    const got = messages[1] as typeof big;
    expect(got.id).toBe(99);
    expect(got.result.content[0].text.length).toBe(text.length);
    expect(got.result.content[0].text === text).toBe(true);
    expect(messages[2]).toEqual(note);
  });

  it('defaults to a 256 MiB cap and rejects nonsense caps', () => {
    expect(collect().framer.maxMessageBytes).toBe(DEFAULT_MAX_MESSAGE_BYTES);
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(256 * 1024 * 1024);
    expect(() => collect(0)).toThrow(RangeError);
    expect(() => collect(1.5)).toThrow(RangeError);
  });
});

describe('LineFramer with onLine (raw lines, as the bridge forwards them)', () => {
  function rawLines(maxMessageBytes?: number) {
    const lines: Buffer[] = [];
    const errors: OversizedMessageError[] = [];
    const framer = new LineFramer({ maxMessageBytes, onLine: (l) => lines.push(Buffer.from(l)), onError: (e) => errors.push(e) });
    return { framer, lines, errors };
  }

  it('hands over every non-empty line byte for byte, newline included, whatever the cut', () => {
    const stream = Buffer.from(`${JSON.stringify(result)}\r\n\nnot json\n${JSON.stringify(ping)}\n`);
    for (let cut = 0; cut <= stream.length; cut++) {
      const { framer, lines } = rawLines();
      framer.push(stream.subarray(0, cut));
      framer.push(stream.subarray(cut));
      expect(Buffer.concat(lines).toString('utf8'), `cut at ${cut}`).toBe(stream.toString('utf8').replace('\n\n', '\n'));
      expect(lines.map((l) => l.at(-1))).toEqual([0x0a, 0x0a, 0x0a]);
    }
  });

  it('gives a view of the chunk when the line lies inside it, not a copy', () => {
    const lines: Buffer[] = [];
    const framer = new LineFramer({ onLine: (l) => lines.push(l) });
    const chunk = Buffer.from(`${JSON.stringify(ping)}\n${JSON.stringify(note)}\n`);
    framer.push(chunk);
    expect(lines.map((l) => l.buffer === chunk.buffer)).toEqual([true, true]);
  });

  it('skips a line over the cap with its size and edges, and goes on with the next', () => {
    const { framer, lines, errors } = rawLines(2000);
    const big = `{"result":{"text":"${'x'.repeat(5000)}"},"jsonrpc":"2.0","id":9}`;
    const stream = Buffer.from(`${big}\n${JSON.stringify(ping)}\n`);
    for (let i = 0; i < stream.length; i += 700) framer.push(stream.subarray(i, i + 700));
    expect(errors.map((e) => e.bytes)).toEqual([Buffer.byteLength(big)]);
    expect(oversizedResponseId(errors[0])).toBe(9);
    expect(lines.map((l) => l.toString('utf8'))).toEqual([`${JSON.stringify(ping)}\n`]);
  });

  it('accepts a line of exactly the cap', () => {
    const line = JSON.stringify({ ...ping, params: { pad: 'x'.repeat(100) } });
    const { framer, lines, errors } = rawLines(Buffer.byteLength(line));
    framer.push(Buffer.from(`${line}\n`));
    expect(errors).toEqual([]);
    expect(lines).toHaveLength(1);
  });
});

describe('oversizedResponseId', () => {
  const cases: Array<[string, string, string | number | undefined]> = [
    [
      'TypeScript SDK order (result first, id last)',
      `{"result":{"content":[{"type":"text","text":"${'x'.repeat(3000)}"}]},"jsonrpc":"2.0","id":12}`,
      12,
    ],
    ['id first (Python SDK order)', `{"jsonrpc":"2.0","id":"req-7","result":{"text":"${'x'.repeat(3000)}"}}`, 'req-7'],
    ['error response, id last', `{"error":{"code":-1,"message":"${'x'.repeat(3000)}"},"jsonrpc":"2.0","id":3}`, 3],
    ['a request (not a response)', `{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"x":"${'x'.repeat(3000)}"}}`, undefined],
    ['plain garbage', 'x'.repeat(3000), undefined],
    ['an id inside the content only', `{"result":{"text":"${'x'.repeat(3000)}","jsonrpc":"2.0","id":5}}`, undefined],
  ];
  it.each(cases)('%s', (_name, line, expected) => {
    const errors: OversizedMessageError[] = [];
    const framer = new LineFramer({ maxMessageBytes: 2000, onMessage: () => {}, onError: (e) => errors.push(e) });
    const bytes = Buffer.from(`${line}\n`);
    for (let i = 0; i < bytes.length; i += 700) framer.push(bytes.subarray(i, i + 700));
    expect(errors).toHaveLength(1);
    expect(errors[0].head.length).toBeLessThanOrEqual(1024);
    expect(errors[0].tail.length).toBeLessThanOrEqual(1024);
    expect(oversizedResponseId(errors[0])).toBe(expected);
  });
});

describe('LineFramer with a spool (long lines streamed to disk)', () => {
  const tempDirs: string[] = [];
  afterAll(async () => {
    const { rm } = await import('node:fs/promises');
    await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  /** A framer spooling into a new temp folder (or the folder `at` makes of it). */
  async function spooling(maxMessageBytes?: number, at: (dir: string) => string = (dir) => dir) {
    const { mkdtemp, readdir } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { RawMessageSpool } = await import('../../electron/core/wire/raw-spool.js');
    const dir = await mkdtemp(join(tmpdir(), 'spillway-framer-'));
    tempDirs.push(dir);
    const spoolDir = at(dir);
    const messages: { message: JSONRPCMessage; spooled?: import('../../electron/core/wire/raw-spool.js').SpooledString[] }[] = [];
    const noise: string[] = [];
    const errors: OversizedMessageError[] = [];
    const { OrderedDelivery } = await import('../../electron/core/wire/ordered-delivery.js');
    const order = new OrderedDelivery((error) => errors.push(error as OversizedMessageError));
    const framer = new LineFramer({
      maxMessageBytes,
      onMessage: (message, spooled) => messages.push({ message, spooled }),
      onNoise: (l) => noise.push(l),
      onError: (e) => errors.push(e),
      spool: { aboveBytes: 4096, create: () => new RawMessageSpool({ dir: spoolDir, minStringBytes: 1024 }) },
      order,
    });
    /** Resolves once everything pushed so far is delivered (a spooled line waits for its files). */
    const settled = () => new Promise<void>((resolve) => order.run(resolve));
    return { framer, messages, noise, errors, files: () => readdir(dir), settled, order };
  }
  const long = 'línea 日本 🚀 "q" \\ \t\n'.repeat(2000);
  const bigResult = {
    result: {
      content: [
        { type: 'text', text: long },
        { type: 'text', text: 'short' },
      ],
    },
    jsonrpc: '2.0',
    id: 7,
  };

  it('delivers a long line with its long strings as files and everything else parsed', async () => {
    const { framer, messages, noise, files, settled } = await spooling();
    const stream = Buffer.from(`${JSON.stringify(ping)}\n${JSON.stringify(bigResult)}\r\n${JSON.stringify(note)}\n`);
    for (let i = 0; i < stream.length; i += 1000) framer.push(stream.subarray(i, i + 1000));
    // The spooled line waits for its file to be written (off the main thread); the note waits behind it.
    expect(messages.map((m) => m.message)).toEqual([ping]);
    await settled();
    expect(noise).toEqual([]);
    expect(messages.map((m) => m.message)).toHaveLength(3);
    expect(messages[0]).toEqual({ message: ping, spooled: undefined });
    expect(messages[2]).toEqual({ message: note, spooled: undefined });
    const { message, spooled } = messages[1]!;
    expect(spooled).toHaveLength(1);
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(spooled![0]!.path, 'utf8')).toBe(long);
    const content = (message as unknown as { result: { content: { text: string }[] } }).result.content;
    expect(content[0]!.text).toBe(spooled![0]!.placeholder);
    expect(content[1]!.text).toBe('short');
    expect(await files()).toHaveLength(1);
  });

  it('reports a long line that is not JSON as noise and deletes what it spooled', async () => {
    const { framer, messages, noise, files, settled } = await spooling();
    framer.push(Buffer.from(`{"text":"${'x'.repeat(10_000)}" oops\n`));
    await settled();
    expect(messages).toEqual([]);
    expect(noise).toHaveLength(1);
    expect(await files()).toEqual([]);
  });

  it('skips a spooled line that grows past the cap, deletes its files and goes on', async () => {
    const { framer, messages, errors, files, settled } = await spooling(20_000);
    const huge = `{"result":{"content":[{"type":"text","text":"${'y'.repeat(30_000)}"}]},"jsonrpc":"2.0","id":9}\n`;
    for (let i = 0; i < huge.length; i += 3000) framer.push(Buffer.from(huge.slice(i, i + 3000)));
    framer.push(Buffer.from(`${JSON.stringify(ping)}\n`));
    await settled();
    expect(errors).toHaveLength(1);
    expect(oversizedResponseId(errors[0]!)).toBe(9);
    expect(messages.map((m) => m.message)).toEqual([ping]);
    expect(await files()).toEqual([]);
  });

  it('makes the spool folder again when it has gone, and delivers the line', async () => {
    const { framer, messages, errors, settled } = await spooling(undefined, (dir) => `${dir}/gone/again`);
    const line = Buffer.from(`${JSON.stringify(bigResult)}\n`);
    for (let i = 0; i < line.length; i += 2000) framer.push(line.subarray(i, i + 2000));
    await settled();
    expect(errors).toEqual([]);
    expect(messages).toHaveLength(1);
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(messages[0]!.spooled![0]!.path, 'utf8')).toBe(long);
  });

  it('skips a line whose spool fails half-way (disk full), failing its request, and goes on', async () => {
    const { mkdtemp, readdir } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { RawMessageSpool } = await import('../../electron/core/wire/raw-spool.js');
    const dir = await mkdtemp(join(tmpdir(), 'spillway-framer-'));
    tempDirs.push(dir);
    class FullDisk extends RawMessageSpool {
      #pushes = 0;
      override push(piece: Buffer): void {
        if (++this.#pushes > 6) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        super.push(piece);
      }
    }
    const messages: JSONRPCMessage[] = [];
    const errors: OversizedMessageError[] = [];
    const { OrderedDelivery } = await import('../../electron/core/wire/ordered-delivery.js');
    const order = new OrderedDelivery((error) => errors.push(error as OversizedMessageError));
    const framer = new LineFramer({
      onMessage: (m) => messages.push(m),
      onError: (e) => errors.push(e),
      spool: { aboveBytes: 4096, create: () => new FullDisk({ dir, minStringBytes: 1024 }) },
      order,
    });
    const line = Buffer.from(`${JSON.stringify(bigResult)}\n${JSON.stringify(ping)}\n`);
    for (let i = 0; i < line.length; i += 2000) framer.push(line.subarray(i, i + 2000));
    await new Promise<void>((resolve) => order.run(resolve));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/could not be written to disk \(ENOSPC: no space left on device, write\)/);
    expect(oversizedResponseId(errors[0]!)).toBe(7);
    expect(messages).toEqual([ping]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('drops a half-spooled line on reset', async () => {
    const { framer, files, messages } = await spooling();
    framer.push(Buffer.from(`{"text":"${'z'.repeat(10_000)}`));
    await framer.reset();
    expect(await files()).toEqual([]);
    expect(messages).toEqual([]);
  });
});

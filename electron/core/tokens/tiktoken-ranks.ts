/**
 * Reads an encoding's byte-pair ranks from its `.tiktoken` file (shipped in gpt-tokenizer's `data/`), in
 * the form gpt-tokenizer's own `bpeRanks/<encoding>.js` modules hold them: per rank the token as a
 * string when its bytes are UTF-8 that round-trips, else its bytes (the package's generateJsBpe.ts rule).
 *
 * Why not `require` that module: compiling its 2.4 MB array literal takes ~30 MB of native memory that
 * glibc keeps after the tokenizer thread stops; this file, read in 64 KiB parts, leaves ~10 MB
 * (measured with the thread started and stopped three times). test/unit/tokens-counter.test.ts checks
 * that both give the same ranks.
 *
 * Runs in the tokenizer thread from its source text: no references outside the body (see
 * tokenizer-thread.ts); `fs` is passed in.
 */
export function readTiktokenRanks(
  path: string,
  fs: {
    openSync(path: string, flags: string): number;
    readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: null): number;
    closeSync(fd: number): void;
  },
): Array<string | number[]> {
  const decoder = new TextDecoder('utf8', { fatal: true });
  const ranks: Array<string | number[]> = [];
  const add = (line: string): void => {
    const space = line.indexOf(' ');
    if (space <= 0) throw new Error(`not a tiktoken file: ${path}`);
    const bytes = Buffer.from(line.slice(0, space), 'base64');
    const rank = Number(line.slice(space + 1));
    // Unused ranks stay holes, as in the generated modules.
    if (rank > ranks.length) ranks.length = rank;
    let text: string | undefined;
    try {
      text = decoder.decode(bytes);
      // The decoder drops a leading BOM: such a token is kept as bytes, like any that does not round-trip.
      if (Buffer.byteLength(text, 'utf8') !== bytes.length) text = undefined;
    } catch {
      text = undefined;
    }
    ranks[rank] = text ?? Array.from(bytes);
  };
  const fd = fs.openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafeSlow(64 * 1024);
    let rest = '';
    for (let read = fs.readSync(fd, buffer, 0, buffer.length, null); read > 0; read = fs.readSync(fd, buffer, 0, buffer.length, null)) {
      const lines = (rest + buffer.toString('latin1', 0, read)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line.length > 0) add(line);
    }
    if (rest.length > 0) add(rest);
  } finally {
    fs.closeSync(fd);
  }
  return ranks;
}

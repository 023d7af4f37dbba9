/**
 * Reads a spilled result back as JSON, for dispatch's `argumentsFrom`, without holding the hub's main
 * thread: parsing a 51 MB JSON there took ~0.5 s a call, only to refuse it as an array (audit s13).
 *
 * Only an object can be arguments, so a text that does not start with `{` is refused by its first
 * character, without reading the rest. An object is parsed here, up to OFF_THREAD_ABOVE_BYTES (the size
 * past which read_result reads a text on its read thread): parsing a larger one on the read thread does
 * not help, since handing the parsed value back costs this thread more than parsing it (a structured
 * clone of a 24 MB object: ~1.3 s against ~0.6 s to parse), and its arguments would be written out as
 * JSON here again to be sent.
 *
 * A result kept with personal data masked (pii maskResults) is refused: its text has placeholders only
 * the call that made them could restore (audit s17, D1).
 */
import { open } from 'node:fs/promises';
import { OFF_THREAD_ABOVE_BYTES } from '../spill/read-result.js';
import { formatBytes } from '../spill/size-labels.js';
import { handleMessages, type SpillStore } from '../spill/spill-store.js';
import { UNKNOWN_ORIGIN } from '../spill/spill-types.js';

/** A `loadSpilledJson` for createDispatch over the spill store; throws a message the model can act on. */
export function spilledJsonLoader(store: SpillStore): (handle: string) => Promise<unknown> {
  return async (handle) => {
    const found = store.lookup(handle);
    if ('error' in found) throw new Error(found.message);
    const entry = found.entry;
    if (entry.masked) throw new Error(entry.server === UNKNOWN_ORIGIN && entry.tool === UNKNOWN_ORIGIN ? MASKED_MAYBE : MASKED);
    const notJson = `the spilled result is not JSON (its content type is ${entry.contentType}).`;
    let json: { value: unknown } | undefined;
    try {
      const first = await firstNonSpace(await store.textFile(entry.handle));
      if (first === '[') throw new Error(ARRAY);
      if (first !== '{') throw new Error(notJson);
      if (entry.textBytes > OFF_THREAD_ABOVE_BYTES) throw new Error(tooLarge(entry.textBytes));
      json = (await store.readDocument(entry.handle)).json;
    } catch (error) {
      // A file system error's message names the file: the model is told the handle's plain message instead.
      const code = (error as { code?: unknown } | null)?.code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new Error(handleMessages.unknown(entry.handle), { cause: error });
      throw error;
    }
    if (!json) throw new Error(notJson);
    return json.value;
  };
}

// Its placeholders are restored only by the call that made them: passed on, the server would get them literally.
const MASKED = 'this result was kept with personal data masked, so its values cannot be passed on: put the values under `arguments` instead.';

// Listed again after a crash from a folder an older Spillway wrote: it may hold placeholders, or not.
const MASKED_MAYBE =
  'this result was kept by an older Spillway and listed again after a crash, so whether personal data was masked in it is not known ' +
  'and its values are not passed on: call the tool again, or put the values under `arguments` instead.';

const ARRAY =
  'the spilled result is a JSON array (its text starts with "["), and arguments must be one JSON object: ' +
  'pass them in `arguments` instead, or the handle of a result that is one object.';

function tooLarge(bytes: number): string {
  return (
    `the spilled result is ${formatBytes(bytes)}, more than the ${formatBytes(OFF_THREAD_ABOVE_BYTES)} argumentsFrom takes: ` +
    'pass the arguments in `arguments` instead, or the handle of a smaller result.'
  );
}

const CHUNK_BYTES = 4_096;

/**
 * The first character of a UTF-8 file that is not JSON whitespace, or undefined when there is none; read a
 * chunk at a time, so only the start of the file is read. A multi-byte character comes back as its first
 * byte's code, which is no JSON opener either.
 */
async function firstNonSpace(path: string): Promise<string | undefined> {
  const file = await open(path, 'r');
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    for (let at = 0; ;) {
      const { bytesRead } = await file.read(chunk, 0, CHUNK_BYTES, at);
      if (bytesRead === 0) return undefined;
      for (let i = 0; i < bytesRead; i++) {
        const byte = chunk[i]!;
        if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return String.fromCharCode(byte);
      }
      at += bytesRead;
    }
  } finally {
    await file.close();
  }
}

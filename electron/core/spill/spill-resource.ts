import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { handleFromUri, SPILL_URI_PREFIX, spillUri } from './spill-handle.js';
import { handleMessages, type SpillStore } from './spill-store.js';

/** Raised for a `resources/read` of a spill URI that does not name a live spilled result. */
export class SpillResourceError extends Error {
  override readonly name = 'SpillResourceError';
}

/** True when `uri` is in Spillway's spill namespace (whether or not the handle exists). */
export function isSpillUri(uri: string): boolean {
  return uri.startsWith(SPILL_URI_PREFIX);
}

/**
 * `resources/read` of `spillway://spill/<handle>`: the text view (application/json or text/plain), then
 * each image, audio or blob block as a blob content with its own `#block-<i>` URI.
 */
export async function readSpillResource(store: SpillStore, uri: string): Promise<ReadResourceResult> {
  const handle = handleFromUri(uri);
  if (!handle) throw new SpillResourceError(`Not a spilled result URI: ${uri.slice(0, 120)}`);
  const found = store.lookup(handle);
  if ('error' in found) throw new SpillResourceError(found.message);
  const entry = found.entry;
  const contents: ReadResourceResult['contents'] = [];
  try {
    const doc = await store.readDocument(handle);
    if (entry.contentType !== 'binary') {
      contents.push({ uri: spillUri(handle), mimeType: entry.contentType === 'json' ? 'application/json' : 'text/plain', text: doc.text });
    }
    for (const block of entry.binary) {
      const bytes = await store.readBinary(handle, block.index);
      contents.push({ uri: `${spillUri(handle)}#block-${block.index}`, mimeType: block.mimeType, blob: bytes.toString('base64') });
    }
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    // Its files are gone (deleted, or evicted while read): the handle's message, never the file's path.
    // The store's cleanup drops entries whose files vanished, so the next lookup says so at once.
    await store.cleanup().catch(() => undefined);
    const now = store.lookup(handle);
    throw new SpillResourceError('error' in now ? now.message : handleMessages.unknown(handle));
  }
  return { contents };
}

/**
 * Reads a spilled result back as JSON, for dispatch's `argumentsFrom`.
 */
import type { SpillStore } from '../spill/spill-store.js';

/** A `loadSpilledJson` for createDispatch over the spill store; throws a message the model can act on. */
export function spilledJsonLoader(store: SpillStore): (handle: string) => Promise<unknown> {
  return async (handle) => {
    const found = store.lookup(handle);
    if ('error' in found) throw new Error(found.message);
    const doc = await store.readDocument(found.entry.handle);
    const json = doc.json;
    if (!json) throw new Error(`the spilled result is not JSON (its content type is ${found.entry.contentType}).`);
    return json.value;
  };
}

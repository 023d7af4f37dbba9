/**
 * read_result output as TOON (issue 18): a query's tabular answer, and head/tail/slice of a tabular JSON
 * result read on its TOON view (one row a line) rather than on its JSON lines. The spilled original stays
 * JSON, and grep, read and query run on it.
 */
import type { ResultEncoding } from '../../../shared/policy.js';
import { encodeValue, encodingNote, isTabular } from '../encoding/toon-encoding.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { SpillDocument } from './spill-document.js';

/** The TOON view of a document, made once per document and encoding (undefined: JSON is shown). */
const views = new WeakMap<SpillDocument, Map<ResultEncoding, Promise<TabularView | undefined>>>();

export interface TabularView {
  doc: SpillDocument;
  /** "the result as TOON (tabular), 38% fewer tokens than JSON". */
  note: string;
}

/** The document's TOON view when its JSON is tabular and the encoding allows it (in 'auto', where it pays). */
export function tabularView(doc: SpillDocument, encoding: ResultEncoding, counter: TokenCounter): Promise<TabularView | undefined> {
  if (encoding === 'json') return Promise.resolve(undefined);
  let byEncoding = views.get(doc);
  if (!byEncoding) views.set(doc, (byEncoding = new Map()));
  let view = byEncoding.get(encoding);
  if (!view) {
    view = makeView(doc, encoding, counter);
    byEncoding.set(encoding, view);
  }
  return view;
}

async function makeView(doc: SpillDocument, encoding: ResultEncoding, counter: TokenCounter): Promise<TabularView | undefined> {
  const json = doc.json;
  if (!json || !isTabular(json.value)) return undefined;
  const encoded = await encodeValue(json.value, encoding, counter, doc.text);
  if (encoded.encoding !== 'toon') return undefined;
  return { doc: new SpillDocument(encoded.text), note: encodingNote(encoded)! };
}

/** A query's answer, given with its pretty JSON: TOON with its note when it is tabular and pays, else that JSON. */
export async function queryAnswer(value: unknown, pretty: string, encoding: ResultEncoding, counter: TokenCounter): Promise<string> {
  if (encoding === 'json' || !isTabular(value)) return pretty;
  const encoded = await encodeValue(value, encoding, counter, pretty);
  return encoded.encoding === 'toon' ? `${encoded.text}\n[${encodingNote(encoded)!}]` : pretty;
}

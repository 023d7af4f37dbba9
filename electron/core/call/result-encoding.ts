/**
 * The pass-through text of a tabular JSON result as TOON (issue 18): a result that passed its threshold
 * and whose text blocks hold a uniform array of objects is delivered with those blocks as TOON and one
 * short note, when the policy's encoding allows it (in 'auto' only where it saves enough). Only text
 * that looks like tabular JSON is parsed; nothing else is touched. structuredContent stays JSON.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { encodeValue, encodingNote, mayBeTabularJson, tokensSaved } from '../encoding/toon-encoding.js';
import { countedText } from '../ledger/counted-text.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { CallReport } from './call-report.js';
import type { ResultPolicy } from './relay-contract.js';

/** In 'auto', a block is re-encoded only when that saves more than the note costs. */
const MIN_SAVED_TOKENS = 24;

/** Cheap: whether a passed result may be worth re-encoding (text-only content, some text looks like tabular JSON). */
export function mayEncodePassed(policy: ResultPolicy, result: CallToolResult): boolean {
  if ((policy.encoding ?? 'auto') === 'json' || result.isError) return false;
  const content = Array.isArray(result.content) ? result.content : [];
  if (content.length === 0 || content.some((block) => block.type !== 'text')) return false;
  return content.some((block) => block.type === 'text' && mayBeTabularJson(block.text));
}

/**
 * The report with its tabular JSON text blocks as TOON, or the report unchanged when none pays. The
 * delivered side is then counted on what is delivered; the ledger gets the tokens the encoding saved,
 * less the note's: the note is delivered too, and the saving is part of the call's (shared/ledger.ts).
 */
export async function encodePassed(report: CallReport, policy: ResultPolicy, counter: TokenCounter): Promise<CallReport> {
  const setting = policy.encoding ?? 'auto';
  const content = report.delivered.content;
  let saved = 0;
  let jsonTokens = 0;
  const notes: string[] = [];
  const blocks = await Promise.all(
    content.map(async (block) => {
      if (block.type !== 'text' || !mayBeTabularJson(block.text)) return block;
      const value = parseOrUndefined(block.text);
      if (value === undefined) return block;
      const encoded = await encodeValue(value, setting, counter, block.text);
      const blockSaved = tokensSaved(encoded);
      if (encoded.encoding !== 'toon' || (setting === 'auto' && blockSaved < MIN_SAVED_TOKENS)) return block;
      saved += blockSaved;
      jsonTokens += encoded.jsonTokens;
      notes.push(encodingNote(encoded)!);
      return { ...block, text: encoded.text };
    }),
  );
  if (saved === 0) return report;
  const note =
    notes.length === 1 ? notes[0]! : `shown as TOON (tabular), ${Math.round((saved / Math.max(1, jsonTokens)) * 100)}% fewer tokens than JSON`;
  const noteText = `[Spillway] ${note}.`;
  const delivered: CallToolResult = { ...report.delivered, content: [...blocks, { type: 'text', text: noteText }] };
  const text = countedText(delivered);
  const encoded: CallReport = {
    ...report,
    delivered,
    asIs: false,
    countsDelivered: false,
    bytesDelivered: Buffer.byteLength(JSON.stringify(delivered), 'utf8'),
    tokensDelivered: undefined,
    tokensSavedByEncoding: saved,
  };
  // Counted after the answer is on its way, with what it delivered (the report is published once both are
  // in): the note and the newline that joins it to the blocks before it are delivered too.
  encoded.countingDelivered = Promise.all([counter.countExactOffThread(text), counter.count(`\n${noteText}`)]).then(([count, noteTokens]) => {
    encoded.tokensSavedByEncoding = Math.max(0, saved - noteTokens);
    return count.tokens;
  });
  return encoded;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

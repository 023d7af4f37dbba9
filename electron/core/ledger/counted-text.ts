/**
 * What a token count counts of a result: the one rule for the ledger's records. The text the model
 * reads, as the sizes measure it (spill/result-view.ts): text blocks and embedded text resources joined
 * by newlines, or structuredContent as pretty JSON when there is no text; plus the tokens of images,
 * audio and blobs (tokens/media-tokens.ts). Never the JSON of the blocks: their quotes, escapes and
 * wrappers are not what the model reads, and a text full of quotes and backslashes has some 40% more
 * tokens as JSON, which made a spilled result read back whole cost more than it had saved.
 */
import { binaryTokens } from '../tokens/media-tokens.js';

/** A result as the ledger is given it: a tool result, or the texts of a resource read. */
export interface CountedResult {
  content?: unknown;
  structuredContent?: unknown;
}

type Block = Record<string, unknown>;

/** The text a count counts of `result` (see above). */
export function countedText(result: CountedResult): string {
  const texts: string[] = [];
  for (const block of blocks(result)) {
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'resource' && typeof resourceOf(block).text === 'string') texts.push(resourceOf(block).text as string);
  }
  if (texts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 2) ?? '';
  return texts.join('\n');
}

/** The tokens of `result`'s images, audio and blob resources, which are not counted as text. */
export function mediaTokens(result: CountedResult): number {
  let tokens = 0;
  for (const block of blocks(result)) {
    if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string') tokens += binaryTokens(block.type, block.data);
    else if (block.type === 'resource') {
      const { text, blob } = resourceOf(block);
      if (typeof text !== 'string' && typeof blob === 'string') tokens += binaryTokens('blob', blob);
    }
  }
  return tokens;
}

function blocks(result: CountedResult): Block[] {
  if (!Array.isArray(result.content)) return [];
  return result.content.filter((block): block is Block => typeof block === 'object' && block !== null);
}

function resourceOf(block: Block): { text?: unknown; blob?: unknown } {
  const resource = block.resource;
  return typeof resource === 'object' && resource !== null ? resource : {};
}

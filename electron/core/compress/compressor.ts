import type { PiiMasker } from '../pii/pii-masker.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { ChatClient } from './chat-client.js';
import { compressResult } from './compress-result.js';
import type { CompressInput, CompressOutcome } from './compress-result.js';
import type { CompressionBudget } from './compression-budget.js';
import type { CompressionCache } from './compression-cache.js';

export interface CompressorDeps {
  client: ChatClient;
  counter: TokenCounter;
  /** Retry escalation; without it every call gets the policy's base budget. */
  budget?: CompressionBudget;
  cache?: CompressionCache;
  maxInputChars?: number;
}

export interface CompressCallOptions {
  /** Per-tool PII masking of what is sent to the model (see CompressDeps.masker). */
  masker?: PiiMasker;
  signal?: AbortSignal;
  /** Key of the escalation streak: what counts as the same call again (the hub: session, tool and arguments); defaults to `input.tool`. */
  budgetKey?: string;
}

export interface Compressor {
  readonly client: ChatClient;
  /**
   * Compresses with the escalated budget: `input.maxOutputTokens` is the policy's base, raised when the
   * same call (`budgetKey`) was made within the budget's window. Never throws.
   */
  compress(input: CompressInput, options?: CompressCallOptions): Promise<CompressOutcome & { attempt: number }>;
}

/** The hub's compression step: one client, one budget and one cache shared by every call. */
export function createCompressor(deps: CompressorDeps): Compressor {
  return {
    client: deps.client,
    async compress(input, options = {}) {
      const grant = deps.budget?.next(options.budgetKey ?? input.tool, input.maxOutputTokens) ?? {
        maxOutputTokens: input.maxOutputTokens,
        attempt: 1,
      };
      const outcome = await compressResult(
        { ...input, maxOutputTokens: grant.maxOutputTokens },
        {
          client: deps.client,
          counter: deps.counter,
          cache: deps.cache,
          masker: options.masker,
          maxInputChars: deps.maxInputChars,
          signal: options.signal,
        },
      );
      return { ...outcome, attempt: grant.attempt };
    },
  };
}

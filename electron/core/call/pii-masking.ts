/**
 * PII on the call path: the request stage masks the arguments (the upstream gets placeholders), and the
 * result stages restore what the upstream answered with, or with maskResults keep the result masked
 * for spilling and models and restore only what the client gets. The vault lives for one call, in memory.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PiiPolicy } from '../../../shared/policy.js';
import { createMasker, type PiiMasker } from '../pii/pii-masker.js';
import { restore } from '../pii/pii-vault.js';
import type { CallContext, Masking } from './call-context.js';

/** The compiled maskers of the PII policies in use: a policy object lives as long as its config. */
export class PiiMaskers {
  #maskers = new WeakMap<PiiPolicy, PiiMasker>();

  /**
   * Request stage: masks the arguments when the tool's policy masks PII. Returns the reason when the
   * policy's custom patterns cannot be compiled (the call is then not made).
   */
  maskArguments(ctx: CallContext): string | undefined {
    const pii = ctx.values?.pii;
    if (!pii) return undefined;
    let masker: PiiMasker;
    try {
      masker = this.#maskerFor(pii);
    } catch (err) {
      return (err as Error).message;
    }
    const { masked, vault } = masker.maskArguments(ctx.args ?? {});
    ctx.masking = { masker, vault, maskResults: pii.maskResults === true };
    ctx.forwarded = masked;
    return undefined;
  }

  /** Throws (PiiPatternError) for a custom pattern the masker refuses; such a masker is not kept. */
  #maskerFor(pii: PiiPolicy): PiiMasker {
    let masker = this.#maskers.get(pii);
    if (!masker) {
      masker = createMasker({ types: pii.types, ...(pii.custom ? { custom: pii.custom } : {}) });
      this.#maskers.set(pii, masker);
    }
    return masker;
  }
}

/** Result stage: the upstream's placeholders replaced by the client's values (comes first on the result path). */
export function restorePii(ctx: CallContext, result: CallToolResult): CallToolResult {
  return ctx.masking ? restore(result, ctx.masking.vault) : result;
}

/** With maskResults: the result as it is spilled and shown to models (placeholders again). */
export function maskResult(masking: Masking, result: CallToolResult): CallToolResult {
  return masking.masker.maskResult(result, masking.vault).masked;
}

/** With maskResults: what the client gets, the originals back in place of the placeholders. */
export function restoreDelivered(masking: Masking, delivered: CallToolResult): CallToolResult {
  return restore(delivered, masking.vault);
}

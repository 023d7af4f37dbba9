/**
 * PII on the call path: the request stage masks the arguments (the upstream gets placeholders), and the
 * result stages restore what the upstream answered with, or with maskResults keep the result masked
 * for spilling and models and restore only what the client gets. The vault lives for one call, in memory.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PiiPolicy } from '../../../shared/policy.js';
import { splitCompressedText } from '../compress/compress-result.js';
import { PiiPatternError } from '../pii/custom-patterns.js';
import { createMasker, PII_DEADLINE_MS, type PiiMasker } from '../pii/pii-masker.js';
import { forEachString, mapStrings, PiiVault, restore, restoreText } from '../pii/pii-vault.js';
import type { CallArguments, CallContext, Masking } from './call-context.js';

/** The compiled maskers of the PII policies in use: a policy object lives as long as its config. */
export class PiiMaskers {
  #maskers = new WeakMap<PiiPolicy, PiiMasker>();
  /** The property names each input schema declares (a tool's definition lives as long as its catalog entry). */
  #names = new WeakMap<object, ReadonlySet<string>>();

  /** `deadlineMs`: how long one masking with custom patterns may run (default PII_DEADLINE_MS). */
  constructor(private readonly deadlineMs?: number) {}

  /**
   * Request stage: masks the client's arguments when the tool's policy masks PII (before the policy's
   * hidden values and overrides are added: those reach the upstream as set). Returns why the call is not
   * made, for the client and the log: the policy's custom patterns cannot be compiled, or one ran out of
   * time (the arguments are never sent unmasked).
   */
  maskArguments(ctx: CallContext): string | undefined {
    const values = ctx.values;
    const pii = values?.pii;
    if (!values || !pii) return undefined;
    let masker: PiiMasker;
    try {
      masker = this.#maskerFor(pii);
    } catch (err) {
      return `Tool "${ctx.entry.name}" was not called: its PII masking policy is invalid (${(err as Error).message}). Fix it in Spillway's tool policies.`;
    }
    // Tagged: a placeholder an earlier call left in the upstream (a memory server keeps what it was sent)
    // never matches one of this call, so it is not restored with this call's value. Placeholder-shaped
    // text in the policy's values is never issued: restoring leaves it as the upstream echoes it.
    const vault = PiiVault.tagged();
    forEachString([values.hiddenParams, values.paramOverrides], (text) => vault.reserveFrom(text));
    let masked: CallArguments;
    try {
      masked = masker.maskArguments(ctx.args ?? {}, vault, this.#namesOf(ctx.entry.upstream.inputSchema)).masked;
    } catch (err) {
      if (!(err instanceof PiiPatternError)) throw err;
      return `Tool "${ctx.entry.name}" was not called: ${this.#tooSlow(err, 'its arguments')}, and arguments are never sent unmasked. ${NEXT_STEP}`;
    }
    ctx.masking = { masker, vault, maskResults: pii.maskResults === true, arguments: masked };
    ctx.forwarded = masked;
    return undefined;
  }

  /**
   * Why a result was not delivered when a custom pattern ran out of time masking it (maskResults, or the
   * goal sent to the compression model). Not the server's failure: it answered.
   */
  resultFailure(ctx: CallContext, err: PiiPatternError): string {
    return (
      `Tool "${ctx.entry.name}" answered, but its result was not delivered: ${this.#tooSlow(err, 'it')}, ` +
      `and results are never spilled or shown to a model unmasked. ${NEXT_STEP}`
    );
  }

  #tooSlow(err: PiiPatternError, what: string): string {
    return `masking personal data in ${what} with the custom PII pattern "${err.patternName}" took longer than ${(this.deadlineMs ?? PII_DEADLINE_MS) / 1000} s`;
  }

  /**
   * Every property name the tool's input schema declares, at any depth: argument keys that are kept as
   * they are (a custom pattern such as `^\w+$` would otherwise turn "path" into a placeholder). Keys the
   * schema does not name (an open object's) may be data, and are masked.
   */
  #namesOf(schema: object): ReadonlySet<string> {
    let names = this.#names.get(schema);
    if (!names) {
      const found = new Set<string>();
      collectPropertyNames(schema, found);
      names = found;
      this.#names.set(schema, names);
    }
    return names;
  }

  /** Throws (PiiPatternError) for a custom pattern the masker refuses; such a masker is not kept. */
  #maskerFor(pii: PiiPolicy): PiiMasker {
    let masker = this.#maskers.get(pii);
    if (!masker) {
      masker = createMasker({
        types: pii.types,
        ...(pii.custom ? { custom: pii.custom } : {}),
        ...(this.deadlineMs !== undefined ? { deadlineMs: this.deadlineMs } : {}),
      });
      this.#maskers.set(pii, masker);
    }
    return masker;
  }
}

/** Adds the keys of every `properties` object in a JSON schema (nested objects, items, anyOf, $defs…). */
function collectPropertyNames(schema: unknown, into: Set<string>, depth = 0): void {
  if (typeof schema !== 'object' || schema === null || depth > 64) return;
  if (Array.isArray(schema)) {
    for (const item of schema) collectPropertyNames(item, into, depth + 1);
    return;
  }
  const record = schema as Record<string, unknown>;
  const properties = record.properties;
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) for (const name of Object.keys(properties)) into.add(name);
  for (const value of Object.values(record)) collectPropertyNames(value, into, depth + 1);
}

const NEXT_STEP =
  "Simplify that pattern in Spillway's tool policies (PII masking: plain text and character classes run fastest, large counted repeats are slow) or remove it.";

/** Result stage: the upstream's placeholders replaced by the client's values (comes first on the result path). */
export function restorePii(ctx: CallContext, result: CallToolResult): CallToolResult {
  return ctx.masking ? restore(result, ctx.masking.vault) : result;
}

/** With maskResults: the result as it is spilled and shown to models (placeholders again). */
export function maskResult(masking: Masking, result: CallToolResult): CallToolResult {
  return masking.masker.maskResult(result, masking.vault).masked;
}

/**
 * With maskResults: what the client gets, the originals back in place of the placeholders. A compressed
 * result's summary is restored apart from its header lines: a JSON summary gets its values escaped as JSON
 * (a backslash or a quote in a value would otherwise change it or break the JSON).
 */
export function restoreDelivered(masking: Masking, delivered: CallToolResult): CallToolResult {
  const vault = masking.vault;
  if (delivered._meta?.['spillway/compressed'] !== true || vault.size === 0) return restore(delivered, vault);
  return mapStrings(delivered, (text) => {
    const compressed = splitCompressedText(text);
    return compressed ? compressed.head + restoreText(compressed.body, vault) : restoreText(text, vault);
  });
}

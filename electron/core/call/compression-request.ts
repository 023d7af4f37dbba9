/**
 * Request stage for action 'compress': Spillway's own `_spillway_goal` and `_spillway_bypass` are taken
 * off the arguments (they never reach the upstream) and, with the tool policy's instructions and budget,
 * become the request the compression stage works from.
 */
import { takeCompressionFields } from '../compress/compression-fields.js';
import type { CallContext } from './call-context.js';

export function takeCompressionRequest(ctx: CallContext): void {
  const values = ctx.values;
  if (values?.action !== 'compress') return;
  const taken = takeCompressionFields(ctx.args);
  ctx.args = taken.args;
  // Dispatch's resultToSpill spills instead: the fields are still taken off, nothing is condensed.
  if (ctx.resultPolicy.action !== 'compress') return;
  ctx.compress = {
    ...(taken.goal ? { goal: taken.goal } : {}),
    ...(taken.bypass ? { bypass: true } : {}),
    ...(values.compressInstructions ? { instructions: values.compressInstructions } : {}),
    ...(values.compressMaxTokens ? { maxTokens: values.compressMaxTokens } : {}),
  };
}

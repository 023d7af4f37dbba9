/**
 * Request stage: the tool policy's parameters applied to the arguments (hidden parameters injected,
 * overrides set), so the upstream gets what the policy says whatever the client sent. Runs after PII
 * masking: the masked arguments get the same values, unmasked (the user set them; the README promises
 * the upstream always gets the hidden value).
 */
import { prepareArguments } from '../policy/schema-rewrite.js';
import type { CallContext } from './call-context.js';

export function applyPolicyArguments(ctx: CallContext): void {
  const values = ctx.values;
  if (values) ctx.args = prepareArguments(ctx.args, values);
  ctx.forwarded = ctx.masking && values ? prepareArguments(ctx.forwarded, values) : ctx.args;
}

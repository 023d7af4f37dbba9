/**
 * Request stage: the tool policy's parameters applied to the arguments (hidden parameters injected,
 * overrides set), so the upstream gets what the policy says whatever the client sent. Runs after PII
 * masking: the masked arguments get the same values, unmasked (the user set them; the README promises
 * the upstream always gets the hidden value). A value the tool no longer takes is not sent: the call is
 * refused (injected-fit.ts). The hidden values injected are then replaced in what goes back (hidden-values.ts).
 */
import { misfitRefusal } from '../policy/injected-fit.js';
import { prepareArguments } from '../policy/schema-rewrite.js';
import type { CallContext } from './call-context.js';
import { hiddenValueMask } from './hidden-values.js';

/** Applies the policy's values; returns why the call is not made (said to the client and in the log), if so. */
export function applyPolicyArguments(ctx: CallContext): string | undefined {
  const values = ctx.values;
  if (values?.injectedMisfit) return misfitRefusal(ctx.entry.name, values.injectedMisfit);
  if (values) {
    ctx.args = prepareArguments(ctx.args, values);
    ctx.hiding = hiddenValueMask(values);
  }
  ctx.forwarded = ctx.masking && values ? prepareArguments(ctx.forwarded, values) : ctx.args;
  return undefined;
}

/**
 * Request stage: the tool policy's parameters applied to the arguments (hidden parameters injected,
 * overrides set), so the upstream gets what the policy says whatever the client sent.
 */
import { prepareArguments } from '../policy/schema-rewrite.js';
import type { CallContext } from './call-context.js';

export function applyPolicyArguments(ctx: CallContext): void {
  if (ctx.values) ctx.args = prepareArguments(ctx.args, ctx.values);
  ctx.forwarded = ctx.args;
}

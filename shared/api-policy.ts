/** Control contract: per-tool/per-server policies, dispatch exposure and tool pinning (issue 5). */
import { z } from 'zod';
import {
  EffectivePolicySchema,
  GlobalPolicyDefaultsSchema,
  GlobalPolicyPatchSchema,
  PendingPinSchema,
  PoliciesSchema,
  ServerPolicySchema,
  ToolPolicySchema,
} from './policy.js';

const empty = z.object({}).strict();
const server = z.string().min(1);
/** The tool's original (upstream) name, not the exposed one. */
const tool = z.string().min(1);

/** Why a tool is or is not listed directly. */
export const ToolExposureSchema = z.object({
  server: z.string(),
  tool: z.string(),
  /** The exposed name (also what spillway__dispatch takes). */
  name: z.string(),
  exposure: z.enum(['direct', 'dispatch', 'hidden', 'withheld']),
  /** dispatch: 'server' (its exposure), 'dispatchOnly' (global) or 'cap' (past maxDirectTools); hidden: 'policy'; withheld: 'pin'. */
  reason: z.enum(['policy', 'server', 'dispatchOnly', 'cap', 'pin']).optional(),
});
export type ToolExposure = z.infer<typeof ToolExposureSchema>;

export const policyApi = {
  'policies.get': {
    req: empty,
    res: z.object({ policies: PoliciesSchema, defaults: GlobalPolicyDefaultsSchema }),
  },
  /** Replaces one tool's policy (`{}` clears it); refused with the field named when invalid. */
  'policies.setTool': {
    req: z.object({ server, tool, policy: ToolPolicySchema }),
    res: EffectivePolicySchema,
  },
  /** Replaces one server's policy; answers with the server-level effective values. */
  'policies.setServer': {
    req: z.object({ server, policy: ServerPolicySchema }),
    res: EffectivePolicySchema,
  },
  'policies.resetTool': {
    req: z.object({ server, tool }),
    res: EffectivePolicySchema,
  },
  /** Changes some of the global switches (dispatch only, direct-tool cap, read-only cache, pinning). */
  'policies.setDefaults': {
    req: GlobalPolicyPatchSchema,
    res: GlobalPolicyDefaultsSchema,
  },
  /** Each field's effective value and where it comes from (default, server, tool). */
  'policies.effective': {
    req: z.object({ server, tool }),
    res: EffectivePolicySchema,
  },
  /** Every known tool and whether it is listed directly, behind dispatch, hidden or withheld. */
  'policies.exposure': {
    req: empty,
    res: z.array(ToolExposureSchema),
  },
  /** Tools withheld because their definition changed, with what changed. */
  'pins.pending': {
    req: empty,
    res: z.array(PendingPinSchema),
  },
  'pins.approve': {
    req: z.object({ server, tool }),
    res: z.object({ approved: z.boolean() }),
  },
} as const;

/**
 * Result stage: a pipe client (stdio, the bridge) never gets one message bigger than the pipe takes
 * (SDK stdio clients drop a message over 10 MiB and close the connection), whatever the tool's policy
 * says: such a result is spilled. HTTP clients have no such limit. One limit, shared with the bridge.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLIENT_PIPE_ENVELOPE_BYTES, CLIENT_PIPE_MAX_BYTES } from '../../../shared/limits.js';
import type { SessionTransportKind } from '../downstream/session.js';
import type { ShapedResult } from '../spill/shape-result.js';
import type { CallContext } from './call-context.js';
import type { ResultShaper } from './relay-contract.js';

/** The largest tool result a pipe client gets: the pipe's limit less room for the JSON-RPC envelope. */
export const CLIENT_PIPE_RESULT_MAX_BYTES = CLIENT_PIPE_MAX_BYTES - CLIENT_PIPE_ENVELOPE_BYTES;

/** Whether a result of `bytes` is too big for the session's client. */
export function exceedsClientPipe(kind: SessionTransportKind, bytes: number): boolean {
  return kind !== 'http' && bytes > CLIENT_PIPE_RESULT_MAX_BYTES;
}

/** The forced spill's threshold at most, so a policy without one (or with a higher one) cannot pass the result again. */
const FORCED_THRESHOLD_MAX_TOKENS = 1_000_000;

/** The shaped result, or, when it is too big for the client, `source` spilled. */
export async function guardClientPipe(ctx: CallContext, source: CallToolResult, shaped: ShapedResult, shaper: ResultShaper): Promise<ShapedResult> {
  if (!exceedsClientPipe(ctx.kind, shaped.outcome.bytesDelivered)) return shaped;
  // A passed result is the one to spill (a spooled one has been read back by then).
  const input = shaped.outcome.action === 'pass' ? shaped.delivered : source;
  const threshold = Math.min(ctx.resultPolicy.thresholdTokens ?? FORCED_THRESHOLD_MAX_TOKENS, FORCED_THRESHOLD_MAX_TOKENS);
  return shaper.shape(input, { action: 'spill', thresholdTokens: threshold, previewTokens: ctx.resultPolicy.previewTokens, spillAlways: true }, ctx);
}

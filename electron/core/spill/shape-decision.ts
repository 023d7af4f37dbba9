/**
 * The pass/spill/truncate decision, as pure functions: what the shaper does with one result, given its
 * policy and what measuring it found. Counting tokens (bounded by the limit) happens in shape-result.ts;
 * these only say what the numbers mean.
 */
import type { EffectiveValues } from '../../../shared/policy.js';

/**
 * What the shaper did with one result. Not shared/events.ts's ResultAction: a call's outcome also names
 * a cache hit, a compression and an error.
 */
export type ShapeAction = 'pass' | 'spill' | 'truncate';

/** A result policy as the shaper takes it: 'compress' spills here (the call path condenses what was spilled). */
export interface ShapePolicy {
  action: EffectiveValues['action'];
  /** Tokens above which a result is spilled or truncated; null turns the check off. */
  thresholdTokens: number | null;
  previewTokens: number;
  ttlMs?: number;
  /**
   * Spill over the threshold even when a header over the preview would not be smaller than the result
   * (otherwise it passes whole, issue 14 item 5): the caller needs the handle, or the result must not go
   * down the client's pipe.
   */
  spillAlways?: boolean;
  /**
   * The caller asked for the result to be spilled (dispatch's resultToSpill): any result that is not an
   * error is kept, whatever its size (an empty one too), and its header says it was kept as asked.
   */
  spillAsked?: boolean;
  /** JSON or TOON for the preview of tabular JSON (issue 18); absent: 'auto'. */
  encoding?: EffectiveValues['encoding'];
}

/**
 * Tokens the text view of a result may have and still pass: the threshold less what its images, audio
 * and blobs cost (negative when they alone are over); -1 when the spill was asked for, so that no text
 * passes. Null when the result passes whatever its size: an error result, a 'pass' policy, or no threshold.
 */
export function textTokenLimit(
  policy: Pick<ShapePolicy, 'action' | 'thresholdTokens' | 'spillAsked'>,
  isError: boolean,
  mediaTokens: number,
): number | null {
  if (isError) return null;
  if (policy.spillAsked) return -1;
  if (policy.action === 'pass' || policy.thresholdTokens === null) return null;
  return policy.thresholdTokens - mediaTokens;
}

/**
 * The decision once the text was measured against its limit (textTokenLimit): within passes; over is
 * truncated when the policy says so and spilled otherwise ('spill' and 'compress').
 */
export function decideShape(policy: Pick<ShapePolicy, 'action'>, overLimit: boolean): ShapeAction {
  if (!overLimit) return 'pass';
  return policy.action === 'truncate' ? 'truncate' : 'spill';
}

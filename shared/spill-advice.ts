/**
 * Advice on spill settings that are valid but work against themselves (issue 14, item 5): a preview
 * not below its threshold makes a spilled result cost about as much as the result itself (Spillway then
 * passes the result whole). Runtime-neutral: no node:*, no electron, no DOM.
 */

import { formatNumber } from './plain-text.js';

/** A warning when the preview is not below the threshold; undefined when the pair makes sense. */
export function previewWarning(thresholdTokens: number | null | undefined, previewTokens: number | undefined): string | undefined {
  if (thresholdTokens === null || thresholdTokens === undefined || previewTokens === undefined) return undefined;
  if (previewTokens < thresholdTokens) return undefined;
  return (
    `The preview (${formatNumber(previewTokens)} tokens) is not below the threshold ` +
    `(${formatNumber(thresholdTokens)} tokens), so a large result saves little or nothing: ` +
    'lower the preview or raise the threshold.'
  );
}

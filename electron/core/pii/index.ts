/** PII masking: detectors, custom patterns, the masker and the vault that restores placeholders. */
export { PII_TYPES, PII_LABELS, luhnValid } from './pii-detectors.js';
export type { PiiType, PiiMatch, DetectContext } from './pii-detectors.js';
export { checkCustomPattern, customLabel, PiiPatternError } from './custom-patterns.js';
export type { CustomPiiPattern, PatternCheck } from './custom-patterns.js';
export { createMasker } from './pii-masker.js';
export type { PiiMasker, PiiMaskerOptions } from './pii-masker.js';
export { PiiVault, restore, restoreText, PLACEHOLDER } from './pii-vault.js';

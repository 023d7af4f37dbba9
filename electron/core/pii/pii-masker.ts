import { DeadlineExceeded, runWithin } from '../text/deadline.js';
import { customDetector, PiiPatternError } from './custom-patterns.js';
import type { CustomPiiPattern } from './custom-patterns.js';
import { DETECTORS, PII_LABELS, PII_TYPES } from './pii-detectors.js';
import type { DetectContext, Detector, PiiMatch, PiiType } from './pii-detectors.js';
import { TextLayout } from './json-text.js';
import type { MaskPiece } from './json-text.js';
import { resolveOverlaps } from './overlaps.js';
import type { RankedMatch } from './overlaps.js';
import { PiiVault, forEachString, mapStrings } from './pii-vault.js';

export interface PiiMaskerOptions {
  /** Built-in types to mask; all of them when left out. */
  types?: readonly PiiType[];
  /** The user's own patterns; they win over built-ins where both match. */
  custom?: readonly CustomPiiPattern[];
  /** With custom patterns: how long one masking may run before it is refused (default PII_DEADLINE_MS). */
  deadlineMs?: number;
}

/**
 * Custom patterns run in linear time, yet a pattern with a huge automaton can still take seconds per
 * megabyte; masking is cut off after this long. Generous: the built-ins alone take ~1 s on 10 MB here.
 */
export const PII_DEADLINE_MS = 10_000;

export interface PiiMasker {
  /** Placeholder labels this masker can issue, in priority order. */
  readonly labels: readonly string[];
  /**
   * A masked deep copy of a tool call's arguments: every string value and object key, at any depth, with its
   * personal data replaced by placeholders (a number whose digits are personal data, e.g. a card number sent
   * as a JSON number, becomes its placeholder: a string), and the vault that restores them. Pass a vault to
   * continue its numbering (the same value keeps its placeholder), or a tagged one (`PiiVault.tagged()`) when
   * the placeholders go to a server that may keep them. Keys in `keepKeys` (the tool's own parameter and
   * property names: never data, and the tool needs them as they are) are left alone. Any string that is JSON
   * text (or JSON lines) is masked inside its strings and numbers only, so it stays valid JSON.
   */
  maskArguments<T>(args: T, vault?: PiiVault, keepKeys?: ReadonlySet<string>): { masked: T; vault: PiiVault };
  /** One text masked, e.g. a result's text view before it reaches a compression model. */
  maskText(text: string, vault?: PiiVault): { text: string; vault: PiiVault };
  /**
   * A masked copy of a tool result (before the spill store): text blocks, embedded text resources and
   * structuredContent (its numbers too, as in the arguments). Binary data (image/audio `data`, resource
   * `blob`) and `_meta` are left as they are: base64 can look like a phone number. A JSON text stays valid
   * JSON: only what lies inside its strings is replaced, and a number token that holds personal data becomes
   * the placeholder in quotes (restored as the number).
   */
  maskResult<T>(result: T, vault?: PiiVault): { masked: T; vault: PiiVault };
  /** The spans that would be masked, non-overlapping and in order. */
  detect(text: string, context?: DetectContext): PiiMatch[];
}

interface RankedDetector {
  label: string;
  detect: Detector;
  /** A custom pattern's definition (a built-in has none). */
  custom?: CustomPiiPattern;
}

/** Built-ins in the order they win overlaps: a card number is not also read as a phone number. */
const PRIORITY: readonly PiiType[] = ['email', 'credit_card', 'ssn', 'dob', 'phone', 'ipv6', 'ipv4'];

/**
 * A masker for the given types and custom patterns. Throws PiiPatternError (naming the pattern and the
 * reason) when a custom pattern is refused; `checkCustomPattern` answers the same without throwing.
 */
export function createMasker(options: PiiMaskerOptions = {}): PiiMasker {
  const enabled = new Set<PiiType>(options.types ?? PII_TYPES);
  for (const type of enabled) if (!PII_TYPES.includes(type)) throw new Error(`Unknown PII type "${String(type)}"`);
  const detectors: RankedDetector[] = [];
  const customLabels = new Set<string>();
  for (const pattern of options.custom ?? []) {
    const detector = customDetector(pattern);
    if (customLabels.has(detector.label)) throw new Error(`Custom PII pattern "${pattern.name}": the name ${detector.label} is used twice`);
    customLabels.add(detector.label);
    detectors.push({ ...detector, custom: pattern });
  }
  for (const type of PRIORITY) if (enabled.has(type)) detectors.push({ label: PII_LABELS[type], detect: DETECTORS[type] });

  // The detector at work, so that a cut-off can name the custom pattern that ran out of time.
  let running: RankedDetector | undefined;
  /** What to replace in `text`; a JSON text is read as json-text.ts says. */
  const piecesOf = (text: string, context: DetectContext): MaskPiece[] => {
    if (detectors.length === 0 || text.length === 0) return [];
    const layout = new TextLayout(text);
    const candidates: RankedMatch[] = [];
    detectors.forEach((d, rank) => {
      running = d;
      const found = d.detect(d.custom ? layout.lineView : layout.view, context);
      // A custom pattern reads each JSON string with an escape decoded too (json-text.ts says why); where
      // both readings match, the pieces overlap and the masked span covers both.
      if (d.custom) for (const s of layout.escapedStrings) found.push(...decodedMatches(d.detect(s.value, context), s.offsets));
      // A custom pattern written for the text itself (`"account":\s*"\w+"` with the JSON's quotes, or
      // `Users\\nancy` with a backslash) may match only there: it reads the text as it is too, and such
      // a match counts where the pattern found nothing on the line reading.
      if (d.custom && layout.lineView !== layout.text) found.push(...apart(d.detect(layout.text, context), inOrder(found)));
      for (const m of found) candidates.push({ ...m, rank });
    });
    running = undefined;
    if (candidates.length === 0) return [];
    return layout.pieces(resolveOverlaps(candidates, layout.view));
  };

  const deadlineMs = options.deadlineMs ?? PII_DEADLINE_MS;
  /** Runs a masking under the deadline when custom patterns take part (the built-ins are fixed and tested). */
  const guarded = <T>(work: () => T): T => {
    if (customLabels.size === 0) return work();
    try {
      return runWithin(deadlineMs, work);
    } catch (error) {
      if (!(error instanceof DeadlineExceeded)) throw error;
      const culprit = running;
      running = undefined;
      // An interrupted match may leave its pattern's automaton cache half-filled: start the custom ones afresh.
      for (const d of detectors) if (d.custom) d.detect = customDetector(d.custom).detect;
      const reason =
        `masking took longer than ${deadlineMs / 1000} s and was stopped (the call is refused rather than sent unmasked): simplify the pattern ` +
        '(plain text and character classes run fastest; large counted repeats and lookbehinds are slow)';
      // Stopped between two detectors (reading the text, sorting matches): name every custom pattern as written.
      const names = detectors.flatMap((d) => (d.custom ? [d.custom.name] : [])).join(', ');
      throw new PiiPatternError(culprit?.custom?.name ?? names, reason);
    }
  };

  const detect = (text: string, context: DetectContext = {}): PiiMatch[] =>
    guarded(() => piecesOf(text, context)).map(({ start, end, label }) => ({ start, end, label }));

  const maskString = (text: string, vault: PiiVault, context: DetectContext): string => {
    const pieces = piecesOf(text, context);
    if (pieces.length === 0) return text;
    let out = '';
    let at = 0;
    for (const p of pieces) {
      // Two matches in one JSON number token: the token was replaced whole with the first.
      if (p.start < at) continue;
      const placeholder = vault.placeholderFor(p.label, p.value, p.jsonNumber);
      out += text.slice(at, p.start) + (p.jsonNumber ? `"${placeholder}"` : placeholder);
      at = p.end;
    }
    return out + text.slice(at);
  };

  /**
   * A number whose digits are personal data (a card number sent as a JSON number): its placeholder, a
   * string (restored as the number); else the number itself. Read as the same digits in a string would be.
   */
  const maskNumber = (value: number, vault: PiiVault, context: DetectContext): number | string => {
    const text = String(value);
    const pieces = piecesOf(text, context);
    // Two matches in one number: replaced whole with the first, as a number token of a JSON text is.
    return pieces.length === 0 ? value : vault.placeholderFor(pieces[0]!.label, text, true);
  };

  return {
    labels: detectors.map((d) => d.label),
    detect,
    maskArguments<T>(args: T, vault = new PiiVault(), keepKeys?: ReadonlySet<string>) {
      forEachString(args, (text) => vault.reserveFrom(text));
      const masked = guarded(() =>
        mapStrings(
          args,
          (text, key) => maskString(text, vault, { key }),
          (name, parent) => (keepKeys?.has(name) ? name : maskString(name, vault, { key: parent })),
          (value, key) => maskNumber(value, vault, { key }),
        ),
      );
      return { masked, vault };
    },
    maskText(text: string, vault = new PiiVault()) {
      vault.reserveFrom(text);
      return { text: guarded(() => maskString(text, vault, {})), vault };
    },
    maskResult<T>(result: T, vault = new PiiVault()) {
      return guarded(() => maskWholeResult(result, vault));
    },
  };

  function maskWholeResult<T>(result: T, vault: PiiVault): { masked: T; vault: PiiVault } {
    if (typeof result !== 'object' || result === null) return { masked: result, vault };
    const { content, structuredContent, ...rest } = result as { content?: unknown; structuredContent?: unknown };
    const blocks = Array.isArray(content) ? content : [];
    const texts = blocks.map(blockTextField);
    texts.forEach((field, i) => field && vault.reserveFrom(field.read(blocks[i])));
    forEachString(structuredContent, (text) => vault.reserveFrom(text));
    const masked: Record<string, unknown> = { ...rest };
    if (content !== undefined) {
      masked.content = Array.isArray(content)
        ? blocks.map((block, i) => {
            const field = texts[i];
            return field ? field.write(block, maskString(field.read(block), vault, {})) : block;
          })
        : content;
    }
    if (structuredContent !== undefined) {
      const maskIn = (text: string, key: string | undefined) => maskString(text, vault, { key });
      masked.structuredContent = mapStrings(structuredContent, maskIn, maskIn, (value, key) => maskNumber(value, vault, { key }));
    }
    return { masked: masked as T, vault };
  }
}

/** Matches found in a decoded JSON string, placed in the text by the string's `offsets`. */
function decodedMatches(matches: readonly PiiMatch[], offsets: readonly number[]): PiiMatch[] {
  return matches.map(({ start, end, label }) => ({ start: offsets[start]!, end: offsets[end]!, label }));
}

/** `matches` sorted in text order (in place). */
function inOrder(matches: PiiMatch[]): PiiMatch[] {
  return matches.sort((a, b) => a.start - b.start || a.end - b.end);
}

/**
 * The matches of `raw` that overlap none of `kept` (both in text order): where a pattern matched the
 * line reading, that match stands, so `note: .*` still stops at the end of a JSON string.
 */
function apart(raw: readonly PiiMatch[], kept: readonly PiiMatch[]): PiiMatch[] {
  const out: PiiMatch[] = [];
  let k = 0;
  for (const m of raw) {
    while (k < kept.length && kept[k]!.end <= m.start) k++;
    if (k === kept.length || kept[k]!.start >= m.end) out.push(m);
  }
  return out;
}

interface TextField {
  read(block: unknown): string;
  write(block: unknown, text: string): unknown;
}

/** Where a content block keeps its text: `text` of a text block, `resource.text` of an embedded resource. */
function blockTextField(block: unknown): TextField | null {
  const b = block as { type?: unknown; text?: unknown; resource?: { text?: unknown } } | null;
  if (b?.type === 'text' && typeof b.text === 'string') {
    return { read: (x) => (x as { text: string }).text, write: (x, text) => ({ ...(x as object), text }) };
  }
  if (b?.type === 'resource' && typeof b.resource?.text === 'string') {
    return {
      read: (x) => (x as { resource: { text: string } }).resource.text,
      write: (x, text) => ({ ...(x as object), resource: { ...(x as { resource: object }).resource, text } }),
    };
  }
  return null;
}

import { parseJson } from '../../../shared/plain-text.js';

/** How a result is condensed: each has its own system prompt. */
export type CompressContentType = 'json' | 'code' | 'text';
export const COMPRESS_CONTENT_TYPES: readonly CompressContentType[] = ['json', 'code', 'text'];

/** Lines looked at: enough to judge, bounded whatever the size. */
const SAMPLE_LINES = 200;
const CODE_SHARE = 0.4;

// Case-sensitive on purpose: prose starts sentences with capitals ("Return to...", "For example").
const CODE_START =
  /^\s*(?:(?:import|export|def|class|function|const|let|var|return|public|private|protected|static|func|fn|package|using|namespace|struct|enum|interface|impl|trait|elif|else)\b|(?:if|for|while|switch|catch)\s*\(|from\s+\S+\s+import\b|async\s+(?:def|function|fn)\b|pub\s+fn\b|#include\b|#define\b|@\w+|[{}]|\/\/|\/\*|\*\/)/;
const CODE_END = /(?:[;{}]|\)\s*\{|\):|=>|->.*:)\s*$/;
const CODE_INNER = /(?:=>|::|\)\s*\{|\(\)|\bself\.|\bthis\.|!==|===|&&|\|\||\+=)/;

/**
 * 'json' when the text parses as JSON; 'code' when at least 40% of its first 200 non-empty lines look
 * like source code (keywords at the start, `;`/`{`/`}` at the end, operators prose rarely has); otherwise
 * 'text'. A shebang line means code.
 */
export function detectContentType(text: string): CompressContentType {
  if (parseJson(text)) return 'json';
  if (text.startsWith('#!')) return 'code';
  let lines = 0;
  let code = 0;
  let at = 0;
  while (at < text.length && lines < SAMPLE_LINES) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    const line = text.slice(at, Math.min(end, at + 400));
    at = end + 1;
    if (line.trim().length === 0) continue;
    lines++;
    if (CODE_START.test(line) || CODE_END.test(line) || CODE_INNER.test(line)) code++;
  }
  return lines >= 3 && code / lines >= CODE_SHARE ? 'code' : 'text';
}

/**
 * A result of many small text blocks (an upstream streaming one character a block) with a long hidden
 * secret is searched once across its blocks, not once per boundary as far as the longest value reaches
 * on either side: the text searched is the result's text, whatever the number of blocks or the length
 * of the secret (before, 20,000 one-character blocks and a 3,000-character key held the event loop ~1.7 s).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { hiddenValueMask, hideInResult } from '../../electron/core/call/hidden-values.js';
import type { ValueMask } from '../../electron/core/log/secret-values.js';
import type { CallPolicy } from '../../electron/core/policy/resolve.js';

const policy = (hiddenParams: Record<string, unknown>) => ({ hiddenParams }) as unknown as CallPolicy;
const text = (t: string) => ({ type: 'text' as const, text: t });
const texts = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : `<${c.type}>`));

/** The real mask, counting the characters its `find` is given. */
function counting(mask: ValueMask) {
  const seen = { chars: 0 };
  const counted: ValueMask = { mask: (t) => mask.mask(t), find: (t) => ((seen.chars += t.length), mask.find!(t)) };
  return { counted, seen };
}

describe('a hidden secret across many text blocks', () => {
  const key = 'k'.repeat(2999) + 'Z';
  const real = hiddenValueMask(policy({ api_key: key }))!;

  it('searches the joined text once, not a window around every boundary', () => {
    const content = Array.from({ length: 2000 }, (_, i) => text(String.fromCharCode(97 + (i % 26))));
    const { counted, seen } = counting(real);
    expect(hideInResult(counted, { content }).content).toBe(content);
    expect(seen.chars).toBeLessThanOrEqual(2000);
  });

  it('still replaces the secret streamed one character a block, once', () => {
    const content = ['key: ', ...key, ' end'].map(text);
    const r = hideInResult(real, { content });
    expect(texts(r).join('')).toBe('key: [hidden: api_key] end');
    expect(texts(r)[1]).toBe('[hidden: api_key]');
  });
});

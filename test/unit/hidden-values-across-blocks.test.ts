/**
 * A hidden secret an upstream quotes split across adjacent text blocks (the first ends with its first
 * part, the next begins with the rest) is replaced like one inside a block: a model reads the blocks in
 * sequence. The placeholder stands where the value starts; the rest is cut from the blocks after. Blocks
 * of other kinds between texts part them; a result without a crossing value is given back as it was.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { hiddenValueMask, hideInResult } from '../../electron/core/call/hidden-values.js';
import type { CallPolicy } from '../../electron/core/policy/resolve.js';

const policy = (hiddenParams: Record<string, unknown>) => ({ hiddenParams }) as unknown as CallPolicy;
const texts = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : `<${c.type}>`));
const text = (t: string) => ({ type: 'text' as const, text: t });

describe('a hidden secret split across text blocks', () => {
  const mask = hiddenValueMask(policy({ api_key: 'orchard-lane-77' }))!;

  it('is replaced where it starts, and its rest cut from the next block', () => {
    const r = hideInResult(mask, { content: [text('bad key orchard-'), text('lane-77 (rotate it)')] });
    expect(texts(r)).toEqual(['bad key [hidden: api_key]', ' (rotate it)']);
  });

  it('is replaced across several blocks, next to values inside a block and values crossing again', () => {
    const r = hideInResult(mask, {
      content: [text('a orch'), text('ard-'), text('lane-77 b orchard-lane-77 c orchard-lane'), text('-77 d'), text('')],
    });
    expect(texts(r)).toEqual(['a [hidden: api_key]', '', ' b [hidden: api_key] c [hidden: api_key]', ' d', '']);
    expect(texts(r).join('')).not.toContain('orchard');
  });

  it('finds the forms a server may quote it in (JSON-escaped, base64), and a short secret only as a whole token', () => {
    const quoted = hiddenValueMask(policy({ password: 'pa"ss-word' }))!;
    const json = JSON.stringify({ p: 'pa"ss-word' });
    expect(texts(hideInResult(quoted, { content: [text(json.slice(0, 10)), text(json.slice(10))] })).join('')).toBe('{"p":"[hidden: password]"}');
    const b64 = Buffer.from('orchard-lane-77').toString('base64');
    expect(texts(hideInResult(mask, { content: [text(`Basic ${b64.slice(0, 5)}`), text(b64.slice(5))] }))).toEqual(['Basic [hidden: api_key]', '']);
    const pin = hiddenValueMask(policy({ pin_password: '4711' }))!;
    expect(texts(hideInResult(pin, { content: [text('pin 47'), text('11 ok')] }))).toEqual(['pin [hidden: pin_password]', ' ok']);
    expect(texts(hideInResult(pin, { content: [text('order 947'), text('112')] }))).toEqual(['order 947', '112']);
  });

  it('is not joined across a block of another kind, and a result with no crossing value stays the same object', () => {
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
    const parted: CallToolResult = { content: [text('key orchard-'), image, text('lane-77')] };
    expect(hideInResult(mask, parted)).toBe(parted);
    const plain: CallToolResult = { content: [text('orchard-'), text('lane 77'), text('nothing here')] };
    expect(hideInResult(mask, plain)).toBe(plain);
    const inside: CallToolResult = { content: [text('key orchard-lane-77'), text('again orchard-lane-77')], isError: true };
    expect(hideInResult(mask, inside)).toEqual({ content: [text('key [hidden: api_key]'), text('again [hidden: api_key]')], isError: true });
  });
});

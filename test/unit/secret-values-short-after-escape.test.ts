/**
 * A secret masked only as a whole word (a hidden 4-5 character PIN in a server's log; a hidden secret
 * under 12 characters in a call's result) is masked too where an escaped separator stands just before
 * it: a JSON log line or result (`"PIN:\n4711"` is written `PIN:\\n4711`) and a web address
 * (`PIN%3A4711`) end the escape with a letter or digit, but the word starts after it. Inside another
 * word or number it is still left.
 */
import type { CallPolicy } from '../../electron/core/policy/resolve.js';
import { describe, expect, it } from 'vitest';
import { hiddenValueMask } from '../../electron/core/call/hidden-values.js';
import { valueMask } from '../../electron/core/log/secret-values.js';

const escaped = ['{"msg":"PIN:\\n4711"}', '{"msg":"PIN\\t4711\\n"}', '{"m":"a\\u00a04711"}', 'GET /x?msg=PIN%3A4711 200', 'GET /x?msg=PIN%204711'];
const inWords = ['x4711', '947112', 'PIN_4711', '4711-2', 'é4711'];

describe('a whole-word secret after an escaped separator', () => {
  it('is masked in a server log line', () => {
    const log = valueMask([{ word: '4711' }]);
    for (const line of escaped) expect(log.mask(line), line).not.toContain('4711');
    for (const line of inWords) expect(log.mask(line), line).toBe(line);
  });

  it('is replaced in a call result', () => {
    const result = hiddenValueMask({ hiddenParams: { password: '4711' } } as unknown as CallPolicy)!;
    for (const text of escaped) expect(result.mask(text), text).toContain('[hidden: password]');
    for (const text of inWords) expect(result.mask(text), text).toBe(text);
  });
});

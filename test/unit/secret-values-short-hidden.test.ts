/**
 * A known secret of 4 or 5 characters (a tool policy's hidden PIN or short key, given as a WordSecret) is
 * masked in the event log (an upstream's stderr lines) where it stands as a whole word, as a call's result
 * replaces it (call/hidden-values.ts); inside a longer word or number it stays. A plain value that short
 * (an env `info`, `8080`) is no known secret: it stays everywhere.
 */
import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../electron/core/log/redact.js';
import { MIN_SECRET_CHARS, MIN_WORD_SECRET_CHARS, SecretValues, valueMask } from '../../electron/core/log/secret-values.js';

describe('short known secrets in the event log', () => {
  it('masks a 4- or 5-character word secret as a whole word only, in its JSON and base64 forms too', () => {
    const secrets = new SecretValues();
    secrets.track(
      'hidden parameters',
      () => 'v1',
      () => [{ word: '4711' }, { word: 'Zq9x2' }],
    );
    secrets.track(
      'config',
      () => 'v1',
      () => ['info', '8080', 'true'],
    );
    expect(secrets.mask('unlock failed: pin 4711 wrong, key Zq9x2.')).toBe(`unlock failed: pin ${REDACTED} wrong, key ${REDACTED}.`);
    expect(secrets.mask('order 947112, id Zq9x2-b, x4711, 4711_a')).toBe('order 947112, id Zq9x2-b, x4711, 4711_a');
    expect(secrets.mask('info level, true, on 8080')).toBe('info level, true, on 8080');
    expect(secrets.mask(`{"pin":"4711"} Basic ${Buffer.from('4711').toString('base64')}`)).toBe(`{"pin":"${REDACTED}"} Basic ${REDACTED}==`);
  });

  it('drops word secrets under 4 characters, and masks a longer one anywhere like any value', () => {
    expect(MIN_WORD_SECRET_CHARS).toBe(4);
    expect(MIN_SECRET_CHARS).toBe(6);
    expect(valueMask([{ word: 'abc' }, { word: ' ab ' }]).mask('abc ab')).toBe('abc ab');
    expect(valueMask([{ word: 'secret7' }]).mask('xsecret7x')).toBe(`x${REDACTED}x`);
    expect(valueMask([{ word: '4711' }, 'opensesame']).mask('4711 opensesame 47110')).toBe(`${REDACTED} ${REDACTED} 47110`);
  });
});

/**
 * Which hidden values are secrets replaced in what goes back, and where (call/hidden-values.ts): a
 * setting merely named like a key (`project_key`, `sort_key`, `partition_key`) is not a secret, while the
 * few names that mean a credential (`key`, `access_key`, `license_key`, `auth_key`, `client_key`) and the
 * log's secret names are. A secret shorter than 12 characters is replaced only as a whole token (not
 * inside a longer number, word or id such as `PROJ-101`); a longer one wherever it appears. The
 * replacing stays one linear pass over text full of near-matches.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { hiddenValueMask, hideInResult } from '../../electron/core/call/hidden-values.js';
import { hiddenSecretTexts } from '../../electron/core/policy/hidden-secrets.js';
import type { CallPolicy } from '../../electron/core/policy/resolve.js';

const policy = (hiddenParams: Record<string, unknown>) => ({ hiddenParams }) as unknown as CallPolicy;

describe('hidden secrets by name', () => {
  it('leaves settings named like a key as the server wrote them', () => {
    expect(
      hiddenValueMask(policy({ project_key: 'PROJ', sort_key: 'created_at', partition_key: 'user_id', primaryKey: 'id-column' })),
    ).toBeUndefined();
    expect(hiddenSecretTexts({ project_key: 'PROJ', options: { sort_key: 'created_at' } })).toEqual([]);
  });

  it('counts key, access_key, license_key, auth_key, client_key and the log’s secret names as secrets', () => {
    const names = ['key', 'access_key', 'licenseKey', 'AUTH-KEY', 'client_key', 'api_key', 'refresh_token', 'password'];
    const texts = hiddenSecretTexts(Object.fromEntries(names.map((n, i) => [n, `value-number-${i}`])));
    expect(texts).toEqual(names.map((n, i) => ({ text: `value-number-${i}`, param: n })));
    expect(hiddenSecretTexts({ options: { licenseKey: 'LIC-1', region: 'eu' } })).toEqual([{ text: 'LIC-1', param: 'options' }]);
  });
});

describe('short secrets replaced as whole tokens only', () => {
  it('does not replace a short secret inside a longer number or id', () => {
    const mask = hiddenValueMask(policy({ pin_password: '1234', api_key: 'PROJ' }))!;
    expect(mask.mask('order 912345, PROJ-101, x_1234, 1234a')).toBe('order 912345, PROJ-101, x_1234, 1234a');
    expect(mask.mask('pin 1234; key PROJ.')).toBe('pin [hidden: pin_password]; key [hidden: api_key].');
    expect(mask.mask('1234')).toBe('[hidden: pin_password]');
    expect(mask.mask(JSON.stringify({ pin: '1234', id: 'PROJ-7' }))).toBe('{"pin":"[hidden: pin_password]","id":"PROJ-7"}');
  });

  it('keeps a structuredContent of ids that merely contain a short secret as it was', () => {
    const mask = hiddenValueMask(policy({ api_key: 'PROJ' }))!;
    const result: CallToolResult = { content: [], structuredContent: { issues: [{ key: 'PROJ-101' }, { key: 'PROJ-102' }] } };
    expect(hideInResult(mask, result)).toBe(result);
  });

  it('replaces a secret of 12 characters or more wherever it appears', () => {
    const mask = hiddenValueMask(policy({ token: 'abcdef123456' }))!;
    expect(mask.mask('xxabcdef123456yy-abcdef123456')).toBe('xx[hidden: token]yy-[hidden: token]');
  });

  it('stays one linear pass over a large text of near-matches', () => {
    const secret = `${'a'.repeat(63)}b`;
    const mask = hiddenValueMask(policy({ api_key: secret, pin_password: 'aaaa', password: 'aaaaaaab' }))!;
    const text = `${'a'.repeat(2_000_000)} ${secret}`;
    const started = performance.now();
    const out = mask.mask(text);
    const ms = performance.now() - started;
    expect(out.endsWith(' [hidden: api_key]')).toBe(true);
    expect(out.length).toBe(2_000_000 + ' [hidden: api_key]'.length);
    // Generous for a shared machine: a backtracking or quadratic pass takes minutes on this text.
    expect(ms).toBeLessThan(5_000);
  });
});

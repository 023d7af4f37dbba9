/**
 * How a call's hidden values are replaced in what goes back (call/hidden-values.ts, on secret-values.ts's
 * replacer): by a placeholder naming the parameter, in the forms a server may quote them in, never inside
 * binary data, not when shorter than MIN_HIDDEN_CHARS, only secrets (by the parameter's name or a known
 * credential's shape: a hidden setting such as an owner or a folder stays as written), and no work at
 * all for a call without them.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { hiddenValueMask, hideInFailure, hideInResult, MIN_HIDDEN_CHARS } from '../../electron/core/call/hidden-values.js';
import { UpstreamFailure } from '../../electron/core/call/upstream-call.js';
import { valueMask } from '../../electron/core/log/secret-values.js';
import type { CallPolicy } from '../../electron/core/policy/resolve.js';

const policy = (hiddenParams: Record<string, unknown>) => ({ hiddenParams }) as unknown as CallPolicy;

describe('hidden values replaced by value', () => {
  it('does nothing for a call without hidden secrets, or with only secrets too short', () => {
    expect(hiddenValueMask(undefined)).toBeUndefined();
    expect(hiddenValueMask(policy({}))).toBeUndefined();
    expect(hiddenValueMask(policy({ lang: 'en', n: 12345678, on: true }))).toBeUndefined();
    expect(hiddenValueMask(policy({ token: 'ab', api_key: 'xyz' }))).toBeUndefined();
    expect(MIN_HIDDEN_CHARS).toBe(4);
    const mask = hiddenValueMask(policy({ lang: 'en', pin_password: '4711' }))!;
    expect(mask.mask('lang en, pin 4711')).toBe('lang en, pin [hidden: pin_password]');
  });

  it('leaves hidden settings as the server wrote them; a known credential is a secret under any name', () => {
    expect(hiddenValueMask(policy({ owner: 'octocat', root: '/home/me/notes', options: { region: 'eu-west-1' } }))).toBeUndefined();
    const token = `ghp_${'a1B2'.repeat(9)}`;
    const mask = hiddenValueMask(policy({ owner: 'octocat', account: token, options: { licenseKey: 'LIC-998877' } }))!;
    expect(mask.mask(`octocat signed in with ${token}`)).toBe('octocat signed in with [hidden: account]');
    expect(mask.mask('licence LIC-998877 expired')).toBe('licence [hidden: options] expired');
  });

  it('names the parameter, finds JSON-escaped, URL-encoded and base64 forms, nested values too', () => {
    const mask = hiddenValueMask(policy({ api_key: 'k"ey/9 x', auth: { user: 'alice-ops', tokens: ['tok-one-1'] } }))!;
    expect(mask.mask('bad key k"ey/9 x')).toBe('bad key [hidden: api_key]');
    expect(mask.mask(JSON.stringify({ got: 'k"ey/9 x' }))).toBe('{"got":"[hidden: api_key]"}');
    expect(JSON.parse(mask.mask(JSON.stringify({ got: 'k"ey/9 x' })))).toEqual({ got: '[hidden: api_key]' });
    expect(mask.mask(`?key=${encodeURIComponent('k"ey/9 x')}`)).toBe('?key=[hidden: api_key]');
    expect(mask.mask(`Basic ${Buffer.from('alice-ops').toString('base64')}`)).toBe('Basic [hidden: auth]');
    expect(mask.mask('user alice-ops with tok-one-1')).toBe('user [hidden: auth] with [hidden: auth]');
  });

  it('replaces in one pass: a value inside the placeholder is not replaced again, the longer value wins', () => {
    const mask = hiddenValueMask(policy({ password: 'hidden', secret: 'hidden-more' }))!;
    expect(mask.mask('x hidden y hidden-more z')).toBe('x [hidden: password] y [hidden: secret] z');
  });

  it('replaces in every text of a result but not in binary data, and keeps a result without them as it is', () => {
    const mask = hiddenValueMask(policy({ key: 'secret-77' }))!;
    const data = Buffer.from('xx secret-77 xx').toString('base64');
    const result: CallToolResult = {
      content: [
        { type: 'text', text: 'key secret-77' },
        { type: 'image', data, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'a://b', blob: data } },
        { type: 'resource', resource: { uri: 'a://c', text: 'secret-77' } },
      ],
      structuredContent: { deep: [{ v: 'secret-77' }], n: 1 },
    };
    const hidden = hideInResult(mask, result);
    expect(hidden.content[0]).toEqual({ type: 'text', text: 'key [hidden: key]' });
    expect(hidden.content[1]).toBe(result.content[1]);
    expect(hidden.content[2]).toBe(result.content[2]);
    expect(hidden.content[3]).toEqual({ type: 'resource', resource: { uri: 'a://c', text: '[hidden: key]' } });
    expect(hidden.structuredContent).toEqual({ deep: [{ v: '[hidden: key]' }], n: 1 });
    expect(result.content[0]).toEqual({ type: 'text', text: 'key secret-77' });
    const plain: CallToolResult = { content: [{ type: 'text', text: 'nothing here' }] };
    expect(hideInResult(mask, plain)).toBe(plain);
  });

  it("replaces in a failure's message and its JSON-RPC error", () => {
    const mask = hiddenValueMask(policy({ key: 'secret-77' }))!;
    const rpc = Object.assign(new Error('invalid key secret-77'), { code: -32602, data: { key: 'secret-77' } });
    const failure = hideInFailure(mask, new UpstreamFailure('invalid key secret-77', rpc));
    expect(failure.message).toBe('invalid key [hidden: key]');
    expect(failure.rpc).toMatchObject({ message: 'invalid key [hidden: key]', code: -32602, data: { key: '[hidden: key]' } });
  });

  it('leaves the log masking as it was: `***`, values from six characters', () => {
    const mask = valueMask(['abcde', 'opensesame']);
    expect(mask.mask('abcde opensesame')).toBe('abcde ***');
  });
});

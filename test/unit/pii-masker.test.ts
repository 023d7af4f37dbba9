/**
 * PII masking: what each detector masks, the near-misses it must leave alone, placeholder numbering,
 * argument walking, and restore(mask(x)) == x over realistic payloads.
 */
import { describe, expect, it } from 'vitest';
import { createMasker, luhnValid, PiiVault, restore, restoreText } from '../../electron/core/pii/index.js';
import type { PiiType } from '../../electron/core/pii/index.js';

const all = createMasker();
const only = (type: PiiType) => createMasker({ types: [type] });
const mask = (text: string, type?: PiiType) => (type ? only(type) : all).maskText(text).text;

describe('detectors mask what they should', () => {
  const cases: Array<[PiiType, string, string]> = [
    ['email', 'Write to jane.doe@example.com today', 'Write to [EMAIL_1] today'],
    ['email', 'cc: J.Smith+news@mail.example.co.uk,', 'cc: [EMAIL_1],'],
    ['email', '<bob_o-neil@sub.example.org>', '<[EMAIL_1]>'],
    ['email', 'Contact: a@b.io: thanks', 'Contact: [EMAIL_1]: thanks'],
    ['phone', 'Call +1 (415) 555-2671 now', 'Call [PHONE_1] now'],
    ['phone', 'UK office +44 20 7946 0958.', 'UK office [PHONE_1].'],
    ['phone', 'Paris +33 1 23 45 67 89', 'Paris [PHONE_1]'],
    ['phone', 'E.164 +14155552671', 'E.164 [PHONE_1]'],
    ['phone', 'Berlin +49-30-1234567', 'Berlin [PHONE_1]'],
    ['phone', 'US (555) 234-5678', 'US [PHONE_1]'],
    ['phone', 'US 555-234-5678 or 555.234.5678 or 555 234 5678', 'US [PHONE_1] or [PHONE_2] or [PHONE_3]'],
    ['phone', 'toll free 1-800-555-0199', 'toll free [PHONE_1]'],
    ['ssn', 'SSN 123-45-6789.', 'SSN [SSN_1].'],
    ['credit_card', 'Visa 4111 1111 1111 1111', 'Visa [CREDIT_CARD_1]'],
    ['credit_card', 'Visa 4111-1111-1111-1111', 'Visa [CREDIT_CARD_1]'],
    ['credit_card', 'card=4111111111111111&x=1', 'card=[CREDIT_CARD_1]&x=1'],
    ['credit_card', 'Amex 3782 822463 10005', 'Amex [CREDIT_CARD_1]'],
    ['credit_card', 'Mastercard 5555555555554444', 'Mastercard [CREDIT_CARD_1]'],
    ['credit_card', 'Mastercard 2-series 2223003122003222', 'Mastercard 2-series [CREDIT_CARD_1]'],
    ['credit_card', 'Discover 6011111111111117', 'Discover [CREDIT_CARD_1]'],
    ['ipv4', 'client 192.168.1.10 and 8.8.8.8', 'client [IPV4_1] and [IPV4_2]'],
    ['ipv4', 'server 10.0.0.1:8080', 'server [IPV4_1]:8080'],
    ['ipv4', 'from=203.0.113.7,', 'from=[IPV4_1],'],
    ['ipv6', 'addr 2001:db8::8a2e:370:7334 up', 'addr [IPV6_1] up'],
    ['ipv6', 'full 2001:0db8:85a3:0000:0000:8a2e:0370:7334', 'full [IPV6_1]'],
    ['ipv6', 'link fe80::1%eth0', 'link [IPV6_1]'],
    ['ipv6', 'mapped ::ffff:192.0.2.1', 'mapped [IPV6_1]'],
    ['dob', 'DOB: 04/12/1990', 'DOB: [DOB_1]'],
    ['dob', 'D.O.B. 12.04.1990', 'D.O.B. [DOB_1]'],
    ['dob', 'She was born on April 12, 1990 in Ohio', 'She was born on [DOB_1] in Ohio'],
    ['dob', 'born 12th March 1985', 'born [DOB_1]'],
    ['dob', 'Date of birth: 1990-04-12', 'Date of birth: [DOB_1]'],
    ['dob', '{"birthDate":"1990-04-12","created":"2024-01-15"}', '{"birthDate":"[DOB_1]","created":"2024-01-15"}'],
    ['dob', 'date_of_birth = 1990/04/12', 'date_of_birth = [DOB_1]'],
  ];
  it.each(cases)('%s: %s', (type, input, expected) => {
    expect(mask(input, type)).toBe(expected);
    expect(mask(input)).toBe(expected);
  });
});

describe('near-misses stay as they are', () => {
  // Decisions (also in the report): bare digit runs are never phones or SSNs; addresses need a dotted
  // domain with a letters-only TLD; dates are only masked next to a birth keyword.
  const nearMisses: Array<[string, string]> = [
    ['version with five parts', 'upgraded to 1.2.3.4.5'],
    ['version keyword before four parts', 'version 1.2.3.4 and ver: 10.0.0.1'],
    ['v-prefixed version', 'release v1.2.3.4'],
    ['octet out of range', 'not an address: 256.1.1.1 or 1.2.3'],
    ['ISBN-13', 'ISBN 978-3-16-148410-0'],
    ['ISBN-10', 'ISBN 0-306-40615-2'],
    ['ISBN-13 bare', 'ISBN 9780306406157'],
    ['card failing Luhn', 'card 4111 1111 1111 1112'],
    ['card number without a known issuer', 'ref 1234567812345670'],
    ['millisecond timestamp', 'ts=1699999999999'],
    ['unix timestamp', 'created_at 1700000000'],
    ['order id (ten bare digits)', 'order 5551234567 shipped'],
    ['long id', 'id 12345678901234567890123'],
    ['area code starting with 1', 'code 123-456-7890'],
    ['short + number', 'score +12 and +3.5'],
    ['date without keyword', 'created 2024-01-15, due 04/12/2025, April 12, 2026'],
    ['keyword too far or in another sentence', 'DOB unknown. Invoice 2024-01-15'],
    ['time of day', 'at 12:30:45 and 2024-01-15T10:30:00Z'],
    ['MAC address', 'mac 00:1A:2B:3C:4D:5E'],
    ['C++ scope', 'std::vector<int> and Foo::Bar and dead::beef'],
    ['loopback v6 alone', 'listen on ::1 or ::'],
    ['host without TLD', 'ssh user@localhost and root@server'],
    ['package versions', 'lodash@4.17.21 and @types/node@20.1.0'],
    ['decorator and scope', '@Component({selector: "x"}) and @scope/pkg'],
    ['retina asset', 'icon@2x.png and logo@3x.webp'],
    ['scp remote', 'git clone git@github.com:org/repo.git'],
    ['SSN never issued', '000-12-3456 666-12-3456 912-34-5678 123-00-4567'],
    ['SSN-like inside a longer run', 'part 123-45-6789-0'],
    ['UUID', 'id 123e4567-e89b-12d3-a456-426614174000'],
    ['git sha', 'commit 4111111111111111a9f'],
    ['semver range', 'requires >=1.2.3 <2.0.0'],
  ];
  it.each(nearMisses)('%s', (_name, input) => {
    expect(mask(input)).toBe(input);
  });
});

describe('placeholders', () => {
  it('numbers per type, in order, and reuses one placeholder for one value', () => {
    const text = 'a@x.com b@x.com a@x.com +44 20 7946 0958 a@x.com';
    expect(mask(text)).toBe('[EMAIL_1] [EMAIL_2] [EMAIL_1] [PHONE_1] [EMAIL_1]');
  });

  it('never issues a placeholder that already appears in the input, so restoring leaves it alone', () => {
    const { masked, vault } = all.maskArguments({ template: 'Hello [EMAIL_1]', to: 'a@x.com' });
    expect(masked).toEqual({ template: 'Hello [EMAIL_1]', to: '[EMAIL_2]' });
    expect(restore(masked, vault)).toEqual({ template: 'Hello [EMAIL_1]', to: 'a@x.com' });
  });

  it('a shared vault continues numbering across calls', () => {
    const first = all.maskText('a@x.com');
    const second = all.maskText('b@x.com and a@x.com', first.vault);
    expect(second.text).toBe('[EMAIL_2] and [EMAIL_1]');
  });

  it('the vault serializes to counts only', () => {
    const { vault } = all.maskArguments({ to: 'a@x.com', cc: 'b@x.com', phone: '+14155552671' });
    expect(JSON.stringify(vault)).toBe('{"masked":{"EMAIL":2,"PHONE":1}}');
    expect(vault.counts()).toEqual({ EMAIL: 2, PHONE: 1 });
  });

  it('restoreText leaves placeholders it did not issue', () => {
    const vault = new PiiVault();
    const p = vault.placeholderFor('EMAIL', 'a@x.com');
    expect(restoreText(`${p} [EMAIL_9] [PHONE_1]`, vault)).toBe('a@x.com [EMAIL_9] [PHONE_1]');
  });

  it('custom patterns win over built-ins where both match', () => {
    const masker = createMasker({ custom: [{ name: 'internal host', pattern: '10\\.0\\.\\d+\\.\\d+' }] });
    expect(masker.labels[0]).toBe('INTERNAL_HOST');
    expect(masker.maskText('db at 10.0.3.4, gw 8.8.8.8').text).toBe('db at [INTERNAL_HOST_1], gw [IPV4_1]');
  });

  it('types can be chosen', () => {
    const masker = createMasker({ types: ['email'] });
    expect(masker.maskText('a@x.com +14155552671').text).toBe('[EMAIL_1] +14155552671');
    expect(createMasker({ types: [] }).maskText('a@x.com').text).toBe('a@x.com');
    expect(() => createMasker({ types: ['passport' as PiiType] })).toThrow(/Unknown PII type "passport"/);
  });
});

describe('maskArguments', () => {
  it('walks nested objects and arrays, masks keys too, leaves non-strings, does not mutate its input', () => {
    const args = {
      query: 'find orders of jane@example.com',
      filters: { phones: ['+1 (415) 555-2671', '(555) 234-5678'], limit: 10, active: true, note: null },
      'jane@example.com': 'keys are masked too',
      byContact: { 'bob@example.net': { tier: 'vip' } },
    };
    const copy = structuredClone(args);
    const { masked, vault } = all.maskArguments(args);
    expect(masked).toEqual({
      query: 'find orders of [EMAIL_1]',
      filters: { phones: ['[PHONE_1]', '[PHONE_2]'], limit: 10, active: true, note: null },
      '[EMAIL_1]': 'keys are masked too',
      byContact: { '[EMAIL_2]': { tier: 'vip' } },
    });
    expect(args).toEqual(copy);
    expect(vault.size).toBe(4);
    expect(restore(masked, vault)).toEqual(args);
  });

  it("leaves the keys it is told to keep (the tool's own parameter names), masks the others", () => {
    const words = createMasker({ types: [], custom: [{ name: 'word', pattern: '^\\w+$' }] });
    const { masked } = words.maskArguments({ path: 'x', extra: { tag: 'y' } }, undefined, new Set(['path', 'extra']));
    expect(masked).toEqual({ path: '[WORD_1]', extra: { '[WORD_2]': '[WORD_3]' } });
  });

  it('a placeholder-shaped key is never issued, and a "__proto__" key stays an own key', () => {
    const args = JSON.parse('{"[EMAIL_1]": "literal", "__proto__": {"to": "a@x.com"}, "cc": "b@x.com"}') as Record<string, unknown>;
    const { masked, vault } = all.maskArguments(args);
    expect(Object.keys(masked)).toEqual(['[EMAIL_1]', '__proto__', 'cc']);
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(JSON.stringify(masked)).toBe('{"[EMAIL_1]":"literal","__proto__":{"to":"[EMAIL_2]"},"cc":"[EMAIL_3]"}');
    expect(JSON.stringify(restore(masked, vault))).toBe(JSON.stringify(args));
  });

  it('a birth-date key marks its value, even with no keyword in the string', () => {
    const { masked } = all.maskArguments({ patient: { dob: '1985-07-04', dateOfBirth: 'July 4, 1985', admitted: '2024-01-15' } });
    expect(masked).toEqual({ patient: { dob: '[DOB_1]', dateOfBirth: '[DOB_2]', admitted: '2024-01-15' } });
  });

  it('restore puts originals back into a tool result: text blocks, structuredContent, resources', () => {
    const { masked, vault } = all.maskArguments({ to: 'jane@example.com', phone: '+14155552671' });
    const result = {
      content: [
        { type: 'text', text: `Sent to ${masked.to}; SMS to ${masked.phone}.` },
        { type: 'resource', resource: { uri: 'mail://1', text: `{"to":"${masked.to}"}` } },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      ],
      structuredContent: { recipients: [{ email: masked.to, ok: true }] },
    };
    expect(restore(result, vault)).toEqual({
      content: [
        { type: 'text', text: 'Sent to jane@example.com; SMS to +14155552671.' },
        { type: 'resource', resource: { uri: 'mail://1', text: '{"to":"jane@example.com"}' } },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      ],
      structuredContent: { recipients: [{ email: 'jane@example.com', ok: true }] },
    });
  });
});

describe('maskResult', () => {
  it('masks text blocks, text resources and structuredContent; leaves binary data and _meta', () => {
    const base64 = 'iVBORw0KGgo/+14155552671AAAAbGVhZA==';
    const result = {
      content: [
        { type: 'text', text: 'Owner: jane@example.com' },
        { type: 'image', data: base64, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'ip 203.0.113.7', mimeType: 'text/plain' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: base64 } },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
      ],
      structuredContent: { owner: { email: 'jane@example.com', dob: '1990-04-12' } },
      _meta: { 'x/contact': 'jane@example.com' },
      isError: false,
    };
    const { masked, vault } = all.maskResult(result);
    expect(masked).toEqual({
      content: [
        { type: 'text', text: 'Owner: [EMAIL_1]' },
        { type: 'image', data: base64, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'ip [IPV4_1]', mimeType: 'text/plain' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: base64 } },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
      ],
      structuredContent: { owner: { email: '[EMAIL_1]', dob: '[DOB_1]' } },
      _meta: { 'x/contact': 'jane@example.com' },
      isError: false,
    });
    expect(restore(masked, vault)).toEqual(result);
  });
});

describe('restore(mask(x)) equals x', () => {
  const payloads: unknown[] = [
    {
      to: ['jane.doe@example.com', 'bob@corp.example.org'],
      subject: 'Invoice for card 4111 1111 1111 1111',
      body: 'Call me at +44 20 7946 0958 or (555) 234-5678.\nDOB: 04/12/1990',
    },
    { sql: "SELECT * FROM users WHERE email = 'a@x.com' OR ip = '192.168.0.7'", params: [1, 'a@x.com', null] },
    { customer: { name: 'Ann', ssn: '123-45-6789', dob: '1979-02-28', cards: [{ number: '5555555555554444', exp: '04/27' }] } },
    {
      log: Array.from(
        { length: 50 },
        (_, i) => `2024-01-15T10:${String(i).padStart(2, '0')}:00Z GET /api from 10.0.${i}.1 user${i}@example.com 200`,
      ).join('\n'),
    },
    { text: 'Literal [EMAIL_1] and [PHONE_3] in the input, plus real a@b.io and +14155552671 and [EMAIL_2].' },
    { v6: ['2001:db8::1', 'fe80::1ff:fe23:4567:890a'], nested: [[['deep a@b.io']]], n: 3.14, ok: false },
    { unicode: 'Grüße an jürgen@example.de — ☎ +49 30 1234567 🚀', empty: '' },
    'plain string with a@b.io',
    ['array', 'of', '+14155552671'],
    42,
    null,
  ];
  it.each(payloads.map((p) => [JSON.stringify(p).slice(0, 60), p]))('%s', (_label, payload) => {
    const { masked, vault } = all.maskArguments(payload);
    expect(restore(masked, vault)).toEqual(payload);
  });

  it('masks something in every payload that has PII', () => {
    for (const payload of payloads.slice(0, 7)) {
      const { masked, vault } = all.maskArguments(payload);
      expect(vault.size).toBeGreaterThan(0);
      expect(JSON.stringify(masked)).not.toContain('a@b.io');
    }
  });
});

describe('luhnValid', () => {
  it.each([
    ['4111111111111111', true],
    ['4111111111111112', false],
    ['378282246310005', true],
    ['0', true],
    ['', false],
    ['12a4', false],
  ])('%s → %s', (digits, valid) => {
    expect(luhnValid(digits)).toBe(valid);
  });
});

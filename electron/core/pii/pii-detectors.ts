import { isIPv6 } from 'node:net';

/** The built-in kinds of personal data Spillway can mask. */
export const PII_TYPES = ['email', 'phone', 'ssn', 'credit_card', 'ipv4', 'ipv6', 'dob'] as const;
export type PiiType = (typeof PII_TYPES)[number];

/** Placeholder label of each built-in type: `[EMAIL_1]`, `[CREDIT_CARD_2]`, ... */
export const PII_LABELS: Record<PiiType, string> = {
  email: 'EMAIL',
  phone: 'PHONE',
  ssn: 'SSN',
  credit_card: 'CREDIT_CARD',
  ipv4: 'IPV4',
  ipv6: 'IPV6',
  dob: 'DOB',
};

/** One piece of personal data found in a string: `text.slice(start, end)` is replaced. */
export interface PiiMatch {
  start: number;
  end: number;
  /** Placeholder label, e.g. 'EMAIL' or a custom pattern's name. */
  label: string;
}

/** Context a detector may use beyond the string itself. */
export interface DetectContext {
  /** The object key this string is the value of, when walking JSON (`{"dob": "1990-01-02"}`). */
  key?: string;
}

export type Detector = (text: string, context: DetectContext) => PiiMatch[];

/*
 * Every pattern below is linear or close to it: no quantified group holds an ambiguous quantifier, and
 * candidates are checked in code (Luhn, digit counts, isIPv6) rather than with clever regexes.
 */

// Local part, then a domain with at least one dot and a letters-only TLD: `user@localhost`, `pkg@1.2.3`
// and `@decorators` are not addresses.
const EMAIL = /(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}(?![\w-]|\.[A-Za-z0-9])/g;

function detectEmail(text: string): PiiMatch[] {
  return matches(text, EMAIL, 'EMAIL', (value, _start, end) => {
    const domain = value.slice(value.indexOf('@') + 1);
    // Retina asset names (`icon@2x.png`) are files, not mailboxes.
    if (/^\d+(?:\.\d+)?x\./i.test(domain)) return false;
    // scp/git remotes (`git@github.com:org/repo.git`) name a host, not a person.
    if (text[end] === ':' && /[\w~/]/.test(text[end + 1] ?? '')) return false;
    return true;
  });
}

// International: `+` and the digits of an E.164 number (8-15) with single separators. Each group starts
// with a separator or `(`, so the digit runs cannot be split two ways.
const PHONE_INTL = /(?<![\w+])\+\d+(?:[ .-]?\(\d{1,5}\)|[ .-]\d+)*(?!\d)/g;
// US/NANP: (555) 123-4567, 555-123-4567, 555.123.4567, 555 123 4567, 1-555-123-4567. Area codes start
// 2-9. Ten bare digits (`5551234567`) are not masked: order ids and timestamps look the same.
const PHONE_US = /(?<![\w+.-])(?:1[ .-]?)?(?:\([2-9]\d{2}\)[ ]?|[2-9]\d{2}[ .-])\d{3}[ .-]\d{4}(?!\w|[.-]\d)/g;

/**
 * Object keys that say their value is a phone number: `phone` or `telephone` with an optional kind before
 * (cellphone, cell_phone, mobilePhone, homePhone) and `number` after (phoneNumber), or `mobile`, `cell`,
 * `tel`, `fax` followed by `number`/`no`/`num` (mobile_number, telNo, fax_number). A bare `cell`, `mobile`,
 * `tel` or `fax` is not enough: `{"cell": 1250000}` is a spreadsheet cell.
 */
const PHONE_KEY =
  /^(?:(?:(?:mobile|cell|home|work|office|contact|fax)[\s_-]*)?(?:tele)?phone(?:[\s_-]*(?:number|no|num))?|(?:mobile|cell|tel|fax)[\s_-]*(?:number|no|num))s?$/i;
/** A whole value that may be a phone number once its key says so: 7 to 15 digits, single separators. */
const PHONE_VALUE = /^\+?\d(?:[ .-]?\d|[ .-]?\(\d{1,5}\)){6,20}$/;

function detectPhone(text: string, context: DetectContext): PiiMatch[] {
  const intl = matches(text, PHONE_INTL, 'PHONE', (value) => {
    const digits = value.replace(/\D/g, '').length;
    return digits >= 8 && digits <= 15;
  });
  const found = [...intl, ...matches(text, PHONE_US, 'PHONE')];
  // Bare digits are a phone number under a key that says so (`{"phone": 14155552671}`, a JSON number has
  // no `+`): the whole value, unless found already.
  if (found.length === 0 && context.key !== undefined && PHONE_KEY.test(context.key) && PHONE_VALUE.test(text)) {
    const digits = text.replace(/\D/g, '').length;
    if (digits >= 7 && digits <= 15) found.push({ start: 0, end: text.length, label: 'PHONE' });
  }
  return found;
}

// Dashed form only: nine bare digits are as likely an id as an SSN.
const SSN = /(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?![\w]|-\d)/g;

function detectSsn(text: string): PiiMatch[] {
  return matches(text, SSN, 'SSN', (value) => {
    const [area, group, serial] = value.split('-');
    // Numbers the SSA never issues.
    return area !== '000' && area !== '666' && area![0] !== '9' && group !== '00' && serial !== '0000';
  });
}

// 13-19 digits, optionally grouped by single spaces or hyphens.
const CARD = /(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w]|[ -]\d)/g;

function detectCreditCard(text: string): PiiMatch[] {
  return matches(text, CARD, 'CREDIT_CARD', (value) => {
    const separators = value.match(/[ -]/g);
    if (separators && new Set(separators).size > 1) return false;
    const digits = value.replace(/\D/g, '');
    return hasIssuerPrefix(digits) && luhnValid(digits);
  });
}

/** The Luhn checksum that every payment card number satisfies. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * Known card-network prefixes and lengths (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay). One
 * random digit string in ten passes Luhn, so without this a 13-digit millisecond timestamp would too.
 */
function hasIssuerPrefix(d: string): boolean {
  const n = d.length;
  const p2 = Number(d.slice(0, 2));
  const p3 = Number(d.slice(0, 3));
  const p4 = Number(d.slice(0, 4));
  if (d[0] === '4') return n === 13 || n === 16 || n === 19;
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return n === 16;
  if (p2 === 34 || p2 === 37) return n === 15;
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649)) return n >= 16 && n <= 19;
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19;
  if ((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38) return n >= 14 && n <= 19;
  if (p2 === 62) return n >= 16 && n <= 19;
  return false;
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
// Not part of a longer dotted run: `1.2.3.4.5` is a version, not an address.
const IPV4 = new RegExp(`(?<![\\w.])${OCTET}(?:\\.${OCTET}){3}(?![\\w]|\\.\\d)`, 'g');

function detectIpv4(text: string): PiiMatch[] {
  return matches(text, IPV4, 'IPV4', (_value, start) => {
    // "version 1.2.3.4", "ver: 10.0.0.1" — a four-part version number looks the same as an address.
    return !/\b(?:version|ver)[\s:=]*$/i.test(text.slice(Math.max(0, start - 12), start));
  });
}

// Candidates only; node:net decides. An embedded IPv4 tail (::ffff:192.0.2.1) and a zone (%eth0) allowed.
const IPV6 = /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{0,4})(?:%[\w.]+)?(?![\w:])/g;

function detectIpv6(text: string): PiiMatch[] {
  return matches(text, IPV6, 'IPV6', (value) => {
    const address = value.split('%')[0]!;
    if (!isIPv6(address)) return false;
    // `::`, `::1` and code like `dead::beef` are not anyone's address: ask for two groups and a digit.
    const groups = address.split(':').filter((g) => g.length > 0);
    return groups.length >= 2 && /\d/.test(address);
  });
}

const MONTH =
  '(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?';
const DATE = new RegExp(
  '(?<![\\w./-])(?:' +
    [
      '\\d{4}[-/.]\\d{1,2}[-/.]\\d{1,2}', // 1990-04-12
      '\\d{1,2}[-/.]\\d{1,2}[-/.](?:\\d{4}|\\d{2})', // 04/12/1990, 12.04.90
      `${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}`, // April 12, 1990
      `\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH},?\\s+\\d{4}`, // 12 April 1990
    ].join('|') +
    ')(?![\\w]|[./-]\\d)',
  'gi',
);
// A keyword, then up to 24 characters with no digit, line or sentence break before the date.
const DOB_BEFORE = /(?:\bdob|\bd\.o\.b\.?|\bdate[\s_-]*of[\s_-]*birth|\bbirth[\s_-]*(?:date|day)|\bborn(?:[\s_-]*on)?)[^\d\n.;]{0,24}$/i;
/** Object keys that say their value is a date of birth: dob, dateOfBirth, birth_date, birthday. */
const DOB_KEY = /^(?:dob|d_?o_?b|date[\s_-]*of[\s_-]*birth|birth[\s_-]*(?:date|day)|born(?:[\s_-]*on)?)$/i;

function detectDob(text: string, context: DetectContext): PiiMatch[] {
  const keyed = context.key !== undefined && DOB_KEY.test(context.key);
  return matches(text, DATE, 'DOB', (_value, start) => keyed || DOB_BEFORE.test(text.slice(Math.max(0, start - 40), start)));
}

/** The detector of each built-in type. */
export const DETECTORS: Record<PiiType, Detector> = {
  email: detectEmail,
  phone: detectPhone,
  ssn: detectSsn,
  credit_card: detectCreditCard,
  ipv4: detectIpv4,
  ipv6: detectIpv6,
  dob: detectDob,
};

/** All matches of a global regex whose value passes `accept`. */
export function matches(
  text: string,
  pattern: RegExp,
  label: string,
  accept: (value: string, start: number, end: number) => boolean = () => true,
): PiiMatch[] {
  const found: PiiMatch[] = [];
  pattern.lastIndex = 0;
  for (const m of text.matchAll(pattern)) {
    const start = m.index;
    const end = start + m[0].length;
    if (m[0].length > 0 && accept(m[0], start, end)) found.push({ start, end, label });
  }
  return found;
}

/**
 * Personal data sent as a JSON number (audit round 2): a card number or a phone number in a number field,
 * at any depth, is masked like the same digits in a string (its placeholder is a string) and restored as
 * the number; with maskResults the numbers of structuredContent too.
 */
import { describe, expect, it } from 'vitest';
import { createMasker, PiiVault, restore } from '../../electron/core/pii/index.js';

const CARD = 4111111111111111;

describe('numbers that hold personal data', () => {
  const masker = createMasker({ types: ['credit_card', 'phone', 'ssn'] });

  it('masks a card number sent as a number, also nested and in a list, and keeps other numbers', () => {
    const args = { card: String(CARD), other: CARD, note: { n: CARD, list: [CARD, 7] }, count: 3, ts: 1699999999999 };
    const { masked, vault } = masker.maskArguments(args, new PiiVault());
    expect(JSON.stringify(masked)).not.toContain(String(CARD));
    expect(masked.other).toMatch(/^\[CREDIT_CARD_\d+\]$/);
    expect(masked.note.n).toBe(masked.other);
    expect(masked.note.list).toEqual([masked.other, 7]);
    expect(masked.count).toBe(3);
    expect(masked.ts).toBe(1699999999999);
    // The string and the number are two values: each gets its own placeholder.
    expect(masked.card).not.toBe(masked.other);
    expect(vault.original(masked.other as unknown as string)).toBe(String(CARD));
  });

  it('masks a phone number sent as a number under a key that says it is one, and not elsewhere', () => {
    const { masked } = masker.maskArguments({ phone: 14155552671, contact: { mobileNumber: 4155552671 }, order: 4155552671 }, new PiiVault());
    expect(masked.phone).toMatch(/^\[PHONE_\d+\]$/);
    expect(masked.contact.mobileNumber).toMatch(/^\[PHONE_\d+\]$/);
    expect(masked.order).toBe(4155552671);
  });

  it('restores a number placeholder in structuredContent as the number, in a text block as its digits', () => {
    const { masked, vault } = masker.maskArguments({ other: CARD }, new PiiVault());
    const placeholder = masked.other as unknown as string;
    const result = {
      content: [
        { type: 'text', text: placeholder },
        { type: 'text', text: JSON.stringify({ other: placeholder }) },
      ],
      structuredContent: { other: placeholder, said: `card ${placeholder}` },
    };
    const restored = restore(result, vault);
    expect(restored.content[0]!.text).toBe(String(CARD));
    expect(JSON.parse(restored.content[1]!.text)).toEqual({ other: CARD });
    expect(restored.structuredContent).toEqual({ other: CARD, said: `card ${CARD}` });
  });

  it('with maskResults, masks the numbers of structuredContent and restores them as numbers', () => {
    const result = { content: [{ type: 'text', text: 'ok' }], structuredContent: { payment: { card: CARD, amount: 12.5 } } };
    const { masked, vault } = masker.maskResult(result, new PiiVault());
    expect(JSON.stringify(masked)).not.toContain(String(CARD));
    expect(masked.structuredContent.payment.amount).toBe(12.5);
    expect(restore(masked, vault)).toEqual(result);
  });
});

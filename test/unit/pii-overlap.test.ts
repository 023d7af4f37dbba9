/**
 * Overlapping matches: every character any detector matched stays masked. The higher-ranked match keeps
 * its whole span; what a lower-ranked one covers beyond it is masked under its own label.
 */
import { describe, expect, it } from 'vitest';
import { createMasker } from '../../electron/core/pii/index.js';

describe('overlap resolution', () => {
  it('an email inside a broader custom match stays masked when a higher-ranked match replaces it', () => {
    const masker = createMasker({
      custom: [
        { name: 'mrn', pattern: 'MRN\\d{7}' },
        { name: 'patient_note', pattern: 'Patient note: [^\\n]*' },
      ],
    });
    const { text, vault } = masker.maskText('Patient note: write to bob@example.com about MRN1234567');
    expect(text).toBe('[PATIENT_NOTE_1] [MRN_1]');
    expect(vault.original('[PATIENT_NOTE_1]')).toBe('Patient note: write to bob@example.com about');
  });

  it('built-ins only: a phone number holding an SSN is masked in full', () => {
    const { text, vault } = createMasker().maskText('+1.2.3.4 123-45-6789');
    expect(text).toBe('[PHONE_1] [SSN_1]');
    expect(vault.original('[PHONE_1]')).toBe('+1.2.3.4');
  });

  it('a lower-ranked match around a higher-ranked one is masked on both sides', () => {
    const masker = createMasker({
      types: [],
      custom: [
        { name: 'code', pattern: 'X\\d{3}' },
        { name: 'line', pattern: 'id:[^;]*;' },
      ],
    });
    expect(masker.maskText('id: a X123 b; rest').text).toBe('[LINE_1] [CODE_1] [LINE_2] rest');
  });

  it('a match inside a higher-ranked one is dropped, as before', () => {
    expect(createMasker().maskText('Visa 4111 1111 1111 1111.').text).toBe('Visa [CREDIT_CARD_1].');
  });
});

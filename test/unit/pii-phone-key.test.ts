/**
 * Bare digits under a key are a phone number only when the key means one: a spreadsheet `cell` or
 * `cells` holds numbers that are not phone numbers; `cell_phone`, `mobileNumber`, `fax_number` do.
 */
import { expect, it } from 'vitest';
import { createMasker, PiiVault } from '../../electron/core/pii/index.js';

const masker = createMasker({ types: ['phone'] });

it('a spreadsheet cell value (a number under "cell") is not a phone number', () => {
  const { masked } = masker.maskArguments({ sheet: 'Q3', cell: 1250000 }, new PiiVault());
  expect(masked.cell).toBe(1250000);
});

it('numbers in a "cells" list are not phone numbers', () => {
  const { masked } = masker.maskArguments({ range: 'B2:C2', cells: [[1250000, 9800000]] }, new PiiVault());
  expect(masked.cells).toEqual([[1250000, 9800000]]);
});

it('a bare "mobile", "tel" or "fax" key is not enough', () => {
  const { masked } = masker.maskArguments({ mobile: 4155552671, tel: 4155552671, fax: 4155552671 }, new PiiVault());
  expect(masked).toEqual({ mobile: 4155552671, tel: 4155552671, fax: 4155552671 });
});

it('keys that mean a phone number still mask bare digits', () => {
  const keys = ['phone', 'telephone', 'cellphone', 'cell_phone', 'mobilePhone', 'phoneNumber', 'mobile_number', 'telNo', 'fax_number', 'phones'];
  for (const key of keys) {
    const { masked } = masker.maskArguments({ [key]: 4155552671 }, new PiiVault());
    expect(masked[key], key).toMatch(/^\[PHONE_\d+\]$/);
  }
});

/**
 * A name in another script with a digit or a Latin word ("Сервер 1", "Данные 1") kept only that part, so
 * both got the id `1` (then `1-2`), which clients also see as the tool prefix (audit s16, fixes review,
 * item 9). A name with letters outside Latin now always gets the code of the whole name, after its Latin
 * and digit part when it has one: `1-<code>`.
 */
import { expect, it } from 'vitest';
import { SERVER_ID_PATTERN, slugServerId } from '../../shared/config.js';

it('tells apart names that differ only in their non-Latin words', () => {
  const a = slugServerId('Сервер 1');
  const b = slugServerId('Данные 1');
  expect(a).not.toBe(b);
  expect(a).toMatch(/^1-[a-z0-9]+$/);
  expect(b).toMatch(/^1-[a-z0-9]+$/);
});

it('keeps the Latin part as a readable start and adds the code of the name', () => {
  expect(slugServerId('日本語 API')).toMatch(/^api-[a-z0-9]+$/);
  expect(slugServerId('日本語 API')).not.toBe(slugServerId('中文 API'));
  expect(slugServerId(' Сервер 1 ')).toBe(slugServerId('Сервер 1'));
});

it('stays within what an id may hold when the Latin part is long', () => {
  const id = slugServerId(`${'a'.repeat(60)} Сервер`);
  expect(id).toMatch(SERVER_ID_PATTERN);
  expect(id.startsWith('a'.repeat(20))).toBe(true);
});

it('leaves names without letters outside Latin as they were', () => {
  expect(slugServerId('Café 1')).toBe('cafe-1');
  expect(slugServerId('Сервер')).toMatch(/^server-[a-z0-9]+$/);
  expect(slugServerId('!!!')).toBe('server');
});

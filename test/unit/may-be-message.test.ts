/**
 * How the line framer tells a long line that may be a JSON-RPC message from noise by its first bytes:
 * `{` then a key or `}`, with the spaces JSON allows; anything else (a byte-order mark, a space JSON.parse
 * refuses, log text) is noise.
 */
import { expect, it } from 'vitest';
import { mayBeMessage } from '../../electron/core/wire/cut-to-heads.js';

it.each([
  ['a message', '{"jsonrpc":"2.0","id":1,"result":{}}', true],
  ['spaces, tabs and a carriage return first', ' \t\r {"jsonrpc":"2.0"}', true],
  ['spaces after the brace', '{ \t "jsonrpc":"2.0"}', true],
  ['an empty object', '{ }', true],
  ['a head that ends after the brace', '  { ', true],
  ['a head that ends at the brace', '{', true],
  ['nothing', '', false],
  ['only spaces', '   ', false],
  ['log text', 'Server listening on port 3000 {"x":1}', false],
  ['an array', '[{"jsonrpc":"2.0"}]', false],
  ['a brace then a number', '{1: 2}', false],
  ['a brace then a word', '{jsonrpc: "2.0"}', false],
  ['a vertical tab first (JSON.parse refuses it)', '\v{"jsonrpc":"2.0"}', false],
  ['a form feed after the brace', '{\f"jsonrpc":"2.0"}', false],
])('%s', (_what, text, expected) => {
  expect(mayBeMessage(Buffer.from(text, 'utf8'))).toBe(expected);
});

it('a byte-order mark first is noise (JSON.parse refuses it)', () => {
  expect(mayBeMessage(Buffer.from('\uFEFF{"jsonrpc":"2.0"}', 'utf8'))).toBe(false);
});

it('a 0xA0 byte (no character in UTF-8) is not a space', () => {
  expect(mayBeMessage(Buffer.from([0xa0, 0x7b, 0x22]))).toBe(false);
  expect(mayBeMessage(Buffer.from([0x7b, 0xa0, 0x22]))).toBe(false);
});

it('a long run of spaces before the brace is read through', () => {
  expect(mayBeMessage(Buffer.concat([Buffer.alloc(256 * 1024 - 2, ' '), Buffer.from('{"')]))).toBe(true);
});

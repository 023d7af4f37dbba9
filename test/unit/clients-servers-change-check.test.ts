/**
 * The last check before a client's file is written (servers-edit.ts): the servers table must be the old one
 * with exactly the named servers changed, compared as data. It replaced two sorted dumps of the whole
 * document (audit s17, connect item 5); these constructed cases show what it still refuses.
 */
import { describe, expect, it } from 'vitest';
import { assertServersChange } from '../../electron/core/clients/servers-edit.js';

const before = { a: { command: 'x', args: ['1'] }, spillway: { url: 'http://127.0.0.1:1/mcp' } };
const ours = { url: 'http://127.0.0.1:2/mcp', headers: { Authorization: 'Bearer t' } };

describe('the check of a change to the servers table', () => {
  it('takes the change asked for, keys in any order', () => {
    expect(() =>
      assertServersChange('f', before, { a: { args: ['1'], command: 'x' }, spillway: ours }, [{ name: 'spillway', value: ours }]),
    ).not.toThrow();
    expect(() => assertServersChange('f', before, { spillway: before.spillway }, [{ name: 'a', value: undefined }])).not.toThrow();
  });

  it('refuses any other server changed, added or gone', () => {
    const change = [{ name: 'spillway', value: ours }];
    const refused = /Internal error: editing f would have changed more than Spillway's entry; nothing was written/;
    expect(() => assertServersChange('f', before, { a: { command: 'x', args: ['2'] }, spillway: ours }, change)).toThrow(refused);
    expect(() => assertServersChange('f', before, { spillway: ours }, change)).toThrow(refused);
    expect(() => assertServersChange('f', before, { ...before, b: {}, spillway: ours }, change)).toThrow(refused);
  });

  it('refuses our entry not as asked (or left when it should be gone)', () => {
    expect(() => assertServersChange('f', before, { ...before }, [{ name: 'spillway', value: ours }])).toThrow(/Internal error/);
    expect(() => assertServersChange('f', before, { ...before }, [{ name: 'spillway', value: undefined }])).toThrow(/Internal error/);
  });
});

import { describe, expect, it } from 'vitest';
import { assignNames, exposedName, sanitizeName } from '../../electron/core/catalog/tool-names.js';

const opts = { prefix: true, maxLength: 48 };

describe('exposedName', () => {
  it.each([
    ['fs', 'read_file', opts, 'fs__read_file'],
    ['everything', 'echo', opts, 'everything__echo'],
    ['fs', 'read_file', { prefix: false, maxLength: 48 }, 'read_file'],
  ])('%s + %s -> %s', (server, tool, o, want) => {
    expect(exposedName(server, tool, o)).toBe(want);
  });

  it('replaces characters outside [A-Za-z0-9_-] and adds a hash so the change cannot collide', () => {
    const a = exposedName('srv', 'get.user', opts);
    const b = exposedName('srv', 'get_user', opts);
    expect(a).toMatch(/^srv__get_user_[0-9a-f]{6}$/);
    expect(b).toBe('srv__get_user');
    expect(a).not.toBe(b);
  });

  it('keeps names within the budget, deterministically, with only allowed characters', () => {
    const long = 'a_really_long_tool_name_that_keeps_going_and_going_forever';
    const name = exposedName('my-server', long, opts);
    expect(name.length).toBeLessThanOrEqual(48);
    expect(name).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(name.startsWith('my-server__a_really')).toBe(true);
    expect(exposedName('my-server', long, opts)).toBe(name);
    expect(exposedName('my-server', `${long}2`, opts)).not.toBe(name);
  });

  it('unicode and empty names still give valid names', () => {
    expect(exposedName('s', 'чтение', opts)).toMatch(/^s__[A-Za-z0-9_-]+$/);
    expect(exposedName('s', '', opts)).toMatch(/^s__tool_[0-9a-f]{6}$/);
    expect(sanitizeName('a b/c')).toBe('a_b_c');
  });

  it('a very long server id still leaves room for the tool', () => {
    const name = exposedName('s'.repeat(40), 'search', { prefix: true, maxLength: 32 });
    expect(name.length).toBeLessThanOrEqual(32);
    expect(name).toContain('__');
  });
});

describe('assignNames', () => {
  const item = (serverId: string, original: string, prefix = true) => ({ serverId, original, prefix });

  it('never gives two items one name, whatever the input order', () => {
    const items = [item('a', 'x.y'), item('a', 'x_y'), item('b', 'x.y'), item('a', 'x_y_' + exposedName('a', 'x.y', opts).slice(-6))];
    const one = assignNames(items, 48);
    const two = assignNames([...items].reverse(), 48);
    expect(one.names.size).toBe(items.length);
    expect([...one.names.keys()].sort()).toEqual([...two.names.keys()].sort());
    expect(one.clashes).toEqual([]);
  });

  it('refuses a prefix-less tool that clashes, naming both servers', () => {
    const r = assignNames([item('a', 'search', false), item('b', 'search', false)], 48);
    expect(r.names.size).toBe(1);
    expect(r.clashes).toHaveLength(1);
    expect(r.clashes[0].reason).toMatch(/"search" from server "b" \(no prefix\) clashes with "search" from "a"/);
  });

  it('never hands out a reserved name', () => {
    const r = assignNames([item('spillway', 'read_result', true)], 48, ['spillway__read_result']);
    expect(r.names.has('spillway__read_result')).toBe(false);
    expect(r.names.size).toBe(1);
  });
});

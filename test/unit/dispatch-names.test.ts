/**
 * Which tool a dispatch describe or call means by its name, and what it answers when it cannot take it:
 * a tool listed directly (moved there by the cap) is still callable, a hidden or withheld one is refused
 * with the reason, a bare name two servers share is ambiguous, and arguments that are not an object say
 * what they were. A read reaches read_result with the caller's context.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createDispatch, type DispatchDeps, type DispatchEntry } from '../../electron/core/policy/dispatch-tool.js';

const schema = { type: 'object' as const, properties: {} };
const entry = (server: string, original: string, description = ''): DispatchEntry => ({
  name: `${server}__${original}`,
  server,
  original,
  description,
  inputSchema: schema,
});

const BEHIND = [entry('fs', 'read_file', 'Read a file'), entry('fs', 'write_file', 'Write a file'), entry('two', 'list_allowed_directories')];
const DIRECT = [entry('fs', 'delete_file', 'Delete a file'), entry('one', 'list_allowed_directories')];

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

function setup(overrides: Partial<DispatchDeps<string>> = {}) {
  const calls: string[] = [];
  const reads: { args: Record<string, unknown>; ctx: string }[] = [];
  const dispatch = createDispatch<string>({
    tools: () => BEHIND,
    callable: () => [...BEHIND, ...DIRECT],
    call: async (name) => {
      calls.push(name);
      return { content: [{ type: 'text', text: `called ${name}` }] };
    },
    read: async (args, ctx) => {
      reads.push({ args, ctx });
      return { content: [{ type: 'text', text: 'read' }] };
    },
    loadSpilledJson: async () => {
      throw new Error('no such handle');
    },
    ...overrides,
  });
  return { dispatch, calls, reads };
}

describe('dispatch names', () => {
  it('describes and calls a tool listed directly, though list and search show only the tools behind dispatch', async () => {
    const { dispatch, calls } = setup();
    expect(textOf(await dispatch.handle({ action: 'call', name: 'fs__delete_file' }, 'session'))).toBe('called fs__delete_file');
    expect(textOf(await dispatch.handle({ action: 'call', name: 'delete_file' }, 'session'))).toBe('called fs__delete_file');
    expect(JSON.parse(textOf(await dispatch.handle({ action: 'describe', name: 'fs__delete_file' }))).name).toBe('fs__delete_file');
    expect(calls).toEqual(['fs__delete_file', 'fs__delete_file']);
    expect(textOf(await dispatch.handle({ action: 'list' }))).not.toContain('delete_file');
    expect(dispatch.tool.description).toContain('Servers behind it: fs (2), two (1).');
  });

  it('answers why a known tool may not be called instead of "Unknown tool" and other names', async () => {
    const refused = 'Tool "fs__secret" is turned off in Spillway.';
    const { dispatch, calls } = setup({ refusal: (name) => (name === 'fs__secret' || name === 'secret' ? refused : undefined) });
    for (const action of ['call', 'describe']) {
      for (const name of ['fs__secret', 'secret']) {
        const result = await dispatch.handle({ action, name }, 'session');
        expect(result).toEqual({ content: [{ type: 'text', text: refused }], isError: true });
      }
    }
    expect(calls).toEqual([]);
    // A name nothing has is still unknown.
    expect(textOf(await dispatch.handle({ action: 'call', name: 'fs__secrets' }, 'session'))).toMatch(/^Unknown tool "fs__secrets"\./);
  });

  it('a bare name two servers have is ambiguous, and the answer lists the full names', async () => {
    const { dispatch, calls } = setup();
    for (const action of ['call', 'describe']) {
      const result = await dispatch.handle({ action, name: 'list_allowed_directories' }, 'session');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        '"list_allowed_directories" is ambiguous: 2 servers have a tool of that name. Use the full name of the one you mean: ' +
          'one__list_allowed_directories, two__list_allowed_directories.',
      );
    }
    expect(calls).toEqual([]);
    expect(textOf(await dispatch.handle({ action: 'call', name: 'two__list_allowed_directories' }, 'session'))).toBe(
      'called two__list_allowed_directories',
    );
  });

  it.each([
    [['x'], 'an array'],
    [null, 'null'],
    [3, 'a number'],
    ['"x"', 'a string'],
  ])('"arguments" given as %j says it must be an object, not %s', async (args, kind) => {
    const { dispatch, calls } = setup();
    const result = await dispatch.handle({ action: 'call', name: 'fs__read_file', arguments: args }, 'session');
    expect(result).toEqual({ content: [{ type: 'text', text: `call: "arguments" must be an object, not ${kind}.` }], isError: true });
    expect(calls).toEqual([]);
  });

  it('a read reaches read_result with the context of the caller', async () => {
    const { dispatch, reads } = setup();
    await dispatch.handle({ action: 'read', handle: 'k3j5x2abq7mz', op: 'stat' }, 'the session');
    expect(reads).toEqual([{ args: { handle: 'k3j5x2abq7mz', op: 'stat' }, ctx: 'the session' }]);
  });
});

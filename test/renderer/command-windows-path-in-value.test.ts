/**
 * A Windows path as the value of an option or of a leading `NAME=value` pair (`--root=\\nas\docs`,
 * `ROOT=\\nas\docs`) lost one of its two leading backslashes: only a word that starts as a Windows path
 * kept them (audit s16, fixes review, item 7). A value after `=` that is a Windows path now keeps its
 * backslashes too; other values are still read as a shell reads them.
 */
import { describe, expect, it } from 'vitest';
import { ServerDraft } from '../../renderer/src/lib/server-draft.svelte.js';
import { splitCommandLine } from '../../renderer/src/lib/snippet-command.js';

function saved(command: string) {
  const draft = new ServerDraft();
  draft.name = 'fs';
  draft.command = command;
  return draft.validate([])?.config;
}

describe('Command: Windows paths after =', () => {
  it('keeps a UNC path given as --root=\\\\nas\\docs', () => {
    expect(saved('C:\\tools\\mcp.exe --root=\\\\nas\\docs')).toMatchObject({ args: ['--root=\\\\nas\\docs'] });
  });

  it('keeps a UNC path in a leading NAME=value pair', () => {
    expect(saved('ROOT=\\\\nas\\docs C:\\tools\\mcp.exe')).toMatchObject({ env: { ROOT: '\\\\nas\\docs' }, command: 'C:\\tools\\mcp.exe' });
  });

  it('keeps the closing backslash of a quoted drive path after =', () => {
    expect(splitCommandLine('mcp --root="C:\\Program Files\\x\\" --stdio')).toEqual(['mcp', '--root=C:\\Program Files\\x\\', '--stdio']);
  });

  it('still reads backslash escapes in a value that is not a Windows path', () => {
    expect(splitCommandLine('mcp --sep=\\\\t --name=a\\ b "--q=\\"x\\""')).toEqual(['mcp', '--sep=\\t', '--name=a b', '--q="x"']);
  });
});

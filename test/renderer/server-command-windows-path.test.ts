/**
 * A Windows path typed in Command as part of a whole command line (`\\fileserver\tools\mcp.exe --stdio`)
 * kept one backslash of its two: the line was read as a POSIX shell reads it, `\\` an escaped backslash
 * (audit s16, servers by hand, item 4). A word that starts as a Windows path keeps its backslashes; other
 * words are still read as a shell reads them.
 */
import { describe, expect, it } from 'vitest';
import { ServerDraft } from '../../renderer/src/lib/server-draft.svelte.js';
import { splitCommandLine } from '../../renderer/src/lib/snippet-command.js';

function saved(command: string) {
  const draft = new ServerDraft();
  draft.name = 'share-tool';
  draft.command = command;
  return draft.validate([])?.config;
}

describe('Command: Windows paths in a command line', () => {
  it('keeps a UNC program path', () => {
    expect(saved('\\\\fileserver\\tools\\mcp.exe --stdio')).toMatchObject({ command: '\\\\fileserver\\tools\\mcp.exe', args: ['--stdio'] });
  });

  it('keeps a doubled backslash in a Windows path argument', () => {
    expect(saved('C:\\tools\\mcp.exe --root \\\\nas\\docs')).toMatchObject({ command: 'C:\\tools\\mcp.exe', args: ['--root', '\\\\nas\\docs'] });
  });

  it('keeps the backslashes of a quoted Windows path with spaces', () => {
    expect(splitCommandLine('"\\\\nas\\My Tools\\mcp.exe" "C:\\Program Files\\x\\"')).toEqual([
      '\\\\nas\\My Tools\\mcp.exe',
      'C:\\Program Files\\x\\',
    ]);
  });

  it('still reads backslash escapes in other words as a shell does', () => {
    expect(splitCommandLine('node my\\ server.js a\\\\b "q\\"x"')).toEqual(['node', 'my server.js', 'a\\b', 'q"x']);
  });
});

/** Which of an app's servers use variables only the app fills in, and how that is said. */
import { describe, expect, it } from 'vitest';
import { clientOnlyReason, clientVariables } from '../../electron/core/clients/client-variables.js';
import type { ImportCandidate } from '../../electron/core/clients/types.js';

const stdio = (args: string[], env: Record<string, string> = {}, command = 'npx'): ImportCandidate => ({
  name: 's',
  kind: 'stdio',
  command,
  args,
  env,
});
const http = (url: string, headers: Record<string, string> = {}): ImportCandidate => ({ name: 'h', kind: 'http', url, headers });

describe('clientVariables', () => {
  it.each([
    ['a plain command line', stdio(['-y', '@modelcontextprotocol/server-memory']), []],
    ["VS Code's workspace folder in an argument", stdio(['-y', 'server-filesystem', '${workspaceFolder}']), ['${workspaceFolder}']],
    ["VS Code's input in an env value", stdio([], { MEMORY_FILE_PATH: '${input:notes-dir}/memory.json' }), ['${input:notes-dir}']],
    ["VS Code's env and home", stdio(['${userHome}/x', '${env:TOKEN}']), ['${userHome}', '${env:TOKEN}']],
    ["Claude Code's ${VAR} with a default, once", stdio(['${DIR:-/tmp}', '${DIR:-/tmp}']), ['${DIR:-/tmp}']],
    ['the command itself', stdio([], {}, '${workspaceFolder}/bin/server'), ['${workspaceFolder}']],
    ['an address', http('https://api.example.com/${env:REGION}/mcp'), ['${env:REGION}']],
    ['a header', http('https://api.example.com/mcp', { Authorization: 'Bearer ${GITHUB_TOKEN}' }), ['${GITHUB_TOKEN}']],
    ['a dollar sign that is no variable', stdio(['price: $5', '{x}']), []],
  ])('%s', (_, c, expected) => {
    expect(clientVariables(c)).toEqual(expected);
  });
});

describe('clientOnlyReason', () => {
  it('says which variables and that the server stays in the app', () => {
    expect(clientOnlyReason(stdio(['x']), 'VS Code')).toBeUndefined();
    expect(clientOnlyReason(stdio(['${workspaceFolder}']), 'VS Code')).toBe(
      'uses ${workspaceFolder}, which only VS Code can fill in; it stays in VS Code',
    );
    expect(clientOnlyReason(stdio(['${a}', '${b}', '${c}']), 'Claude Code')).toBe(
      'uses ${a}, ${b} and ${c}, which only Claude Code can fill in; it stays in Claude Code',
    );
  });
});

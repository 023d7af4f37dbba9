/**
 * Where the third-party MCP clients the tests drive are installed: the MCP Inspector CLI and mcp-remote as
 * devDependencies; Claude Code (~360 MB) in a folder of its own outside the app, cached between runs on
 * one machine (`.ci/run` installs it there).
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './hub-harness.js';

/** The `mcp-inspector` bin (its launcher; `--cli` runs the CLI client). */
export const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
/** The `mcp-remote` bin: a stdio MCP server that relays to a remote HTTP one. */
export const MCP_REMOTE = join(ROOT, 'node_modules/mcp-remote/dist/proxy.js');

export const CLAUDE_CODE_VERSION = '2.1.330';

/** The folder `.ci/run` installs Claude Code into (same variable and default). */
export function claudeCodeDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.SPILLWAY_TEST_CLIENTS || join(homedir(), '.cache', 'spillway-test-clients'), 'claude-code');
}

/** Claude Code's `claude` binary when the pinned version is installed there; otherwise why not and how to install it. */
export function findClaudeCode(env: NodeJS.ProcessEnv = process.env): { bin: string } | { missing: string } {
  const dir = claudeCodeDir(env);
  const install = `npm install --prefix "${dir}" --no-audit --no-fund @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`;
  let version: string | undefined;
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'node_modules/@anthropic-ai/claude-code/package.json'), 'utf8')) as { version?: string };
    version = pkg.version;
  } catch {
    /* not installed */
  }
  const bin = join(dir, 'node_modules/.bin/claude');
  if (version === CLAUDE_CODE_VERSION && existsSync(bin)) return { bin };
  const found = version ? `Claude Code ${version} is installed in ${dir}, not ${CLAUDE_CODE_VERSION}` : `Claude Code is not installed in ${dir}`;
  return { missing: `${found}: run .ci/run, or \`${install}\` (SPILLWAY_TEST_CLIENTS picks another parent folder)` };
}

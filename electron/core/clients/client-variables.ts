/**
 * Variables an app fills in itself in its servers' settings: VS Code's `${workspaceFolder}`,
 * `${input:id}`, `${userHome}`, `${env:VAR}`; the `${VAR}` (and `${VAR:-default}`) that Claude Code,
 * Cursor and Gemini CLI take from the environment they run in. Spillway runs a server elsewhere (another
 * folder, another environment, nobody to ask for an input), so it would pass `${workspaceFolder}` on as
 * literal text and the server would look in a folder of that name. Such a server is not imported and
 * stays in the app's file. Spillway does not fill in a plain `${VAR}` from its own environment either:
 * the app's environment (a terminal's, a workspace's) is not the hub's, and the same name can hold
 * another value there.
 */
import type { ImportCandidate } from './types.js';

const VARIABLE = /\$\{[^}\s]*\}/g;

/** The variables a client's server uses, each once, in the order they appear. */
export function clientVariables(c: ImportCandidate): string[] {
  const texts = c.kind === 'stdio' ? [c.command, ...c.args, ...Object.values(c.env)] : [c.url, ...Object.values(c.headers)];
  return [...new Set(texts.flatMap((t) => t.match(VARIABLE) ?? []))];
}

/** Why Spillway leaves this server in the app, in plain words; undefined when it can run it. */
export function clientOnlyReason(c: ImportCandidate, app: string): string | undefined {
  const vars = clientVariables(c);
  if (vars.length === 0) return undefined;
  const named = vars.length === 1 ? vars[0] : `${vars.slice(0, -1).join(', ')} and ${vars[vars.length - 1]}`;
  return `uses ${named}, which only ${app} can fill in; it stays in ${app}`;
}

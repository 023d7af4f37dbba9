/**
 * Reads what a user pastes to add a server (issue 14, item 6): JSON as READMEs and clients write it,
 * tolerantly (comments, trailing commas, a whole `claude_desktop_config.json`, a bare `"name": {...}`
 * pair), or a command line such as `npx -y @modelcontextprotocol/server-filesystem /tmp`. What cannot be
 * read is said in a sentence with what to do next, never as a parser's message.
 */
import { parse, type ParseError } from 'jsonc-parser';
import { fromMcpServerEntry, type ServerConfigInput } from '../../../shared/config.js';
import { parseCommandLine } from './snippet-command.js';
import { jsonProblem } from '../../../shared/json-problems.js';

/** A server found in a pasted snippet. */
export interface SnippetServer {
  name: string;
  config: ServerConfigInput;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function looksLikeEntry(v: unknown): boolean {
  return isRecord(v) && ('command' in v || 'url' in v || 'serverUrl' in v || 'httpUrl' in v);
}

/** Line and column (1-based) of an offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** JSON with comments and trailing commas; the first problem when it is not. */
export function parseJsonc(text: string): { value: unknown } | { problem: string } {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return { value };
  const { line, column } = lineAndColumn(text, first.offset);
  const what = jsonProblem(first.error);
  return { problem: `${what} at line ${line}, column ${column}` };
}

/** One server entry's config; its problem said with the server's name rather than a path. */
function entryConfig(entry: unknown, name: string): ServerConfigInput {
  const path = name === '' ? 'server' : name;
  try {
    return fromMcpServerEntry(entry, path);
  } catch (err) {
    let message = (err instanceof Error ? err.message : String(err)).replace(`${path}: `, '');
    if (message.startsWith('needs either')) message = 'A server needs a "command" (the program to start) or a "url" (its web address): fill in one.';
    throw new Error(name === '' ? message : `In "${name}": ${message}`, { cause: err });
  }
}

/** Whether pasted text is meant as JSON (else it is read as a command line). */
function looksLikeJson(text: string): boolean {
  return /^(\{|\[|"|\/\/|\/\*)/.test(text);
}

/**
 * Reads what READMEs show: `{"mcpServers": {...}}` (a whole client config too), VS Code's
 * `{"servers": {...}}`, a bare `"name": {...}` pair, one entry `{command, args}`, or a command line.
 * Throws with a sentence saying what to do.
 */
export function parseSnippet(text: string): SnippetServer[] {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error('Paste a server first: its JSON from a README or a client config, or the command line that starts it.');
  if (!looksLikeJson(trimmed)) return [parseCommandLine(trimmed)];
  let parsed = parseJsonc(trimmed);
  // README excerpts often omit the outer braces: `"memory": { "command": "npx", ... },`.
  if ('problem' in parsed && trimmed.startsWith('"')) {
    const wrapped = parseJsonc(`{${trimmed}}`);
    if ('value' in wrapped) parsed = wrapped;
  }
  if ('problem' in parsed) {
    throw new Error(
      `This is not JSON Spillway can read (${parsed.problem}). Copy the whole snippet, braces included, or paste the command line instead.`,
    );
  }
  const raw = parsed.value;
  if (!isRecord(raw)) throw new Error('Expected a JSON object with "mcpServers" (or one server with "command" or "url"); copy the whole snippet.');
  if (looksLikeEntry(raw)) return [{ name: '', config: entryConfig(raw, '') }];
  const group = isRecord(raw.mcpServers) ? raw.mcpServers : isRecord(raw.servers) ? raw.servers : raw;
  const out: SnippetServer[] = [];
  for (const [name, entry] of Object.entries(group)) {
    if (looksLikeEntry(entry)) out.push({ name, config: entryConfig(entry, name) });
  }
  if (out.length === 0) {
    throw new Error(
      'No server found in this JSON: each server needs a "command" (a program) or a "url" (a web address). Check that the snippet is the server part.',
    );
  }
  return out;
}

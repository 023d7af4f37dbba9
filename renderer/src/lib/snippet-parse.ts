/**
 * Reads what a user pastes to add a server (issue 14, item 6): JSON as READMEs and clients write it,
 * tolerantly (comments, trailing commas, a whole `claude_desktop_config.json`, a bare `"name": {...}`
 * pair), or a command line such as `npx -y @modelcontextprotocol/server-filesystem /tmp`. What cannot be
 * read is said in a sentence with what to do next, never as a parser's message.
 */
import { parse, type ParseError } from 'jsonc-parser';
import { fromMcpServerEntry, type ServerConfigInput } from '../../../shared/config.js';
import { commandServer, splitCommandLine } from './snippet-command.js';
import { readClientCommand } from './snippet-client-cli.js';
import { clearPlaceholders, type SnippetPlaceholder } from './snippet-placeholders.js';
import { jsonProblem } from '../../../shared/json-problems.js';

export type { SnippetPlaceholder };

/** A server found in a pasted snippet. */
export interface SnippetServer {
  name: string;
  config: ServerConfigInput;
  /** Env or header values the snippet held stand-ins for (cleared in `config`); absent when none. */
  placeholders?: SnippetPlaceholder[];
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

/** The text inside a Markdown code fence (```json … ```) or inline code (`…`), as copied from a README. */
export function stripCodeFence(text: string): string {
  const fenced = /^(```+|~~~+)[^\n]*\n([\s\S]*?)\n?\1\s*$/.exec(text) ?? /^(```+|~~~+)[^\n]*\n([\s\S]*)$/.exec(text);
  if (fenced) return fenced[2]!.trim();
  const inline = /^`([^`]+)`$/.exec(text);
  return inline ? inline[1]!.trim() : text;
}

/** JSON text parsed, or a sentence saying what to do. README excerpts often omit the outer braces. */
function readJson(text: string): unknown {
  let parsed = parseJsonc(text);
  if ('problem' in parsed && text.startsWith('"')) {
    const wrapped = parseJsonc(`{${text}}`);
    if ('value' in wrapped) parsed = wrapped;
  }
  if ('problem' in parsed) {
    throw new Error(
      `This is not JSON Spillway can read (${parsed.problem}). Copy the whole snippet, braces included, or paste the command line instead.`,
    );
  }
  return parsed.value;
}

/** The servers of a JSON snippet (see parseSnippet for the shapes). */
function jsonServers(raw: unknown): SnippetServer[] {
  if (!isRecord(raw)) throw new Error('Expected a JSON object with "mcpServers" (or one server with "command" or "url"); copy the whole snippet.');
  if (looksLikeEntry(raw)) return [{ name: '', config: entryConfig(raw, '') }];
  const vsCodeSettings = isRecord(raw.mcp) && isRecord(raw.mcp.servers) ? raw.mcp.servers : undefined;
  const group = isRecord(raw.mcpServers) ? raw.mcpServers : isRecord(raw.servers) ? raw.servers : (vsCodeSettings ?? raw);
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

/** A command line: a client's add command (`claude mcp add …`, `code --add-mcp …`) or the server's own. */
function commandLineServer(line: string): SnippetServer {
  const words = splitCommandLine(line.replace(/^\$\s+/, ''));
  const client = readClientCommand(words);
  if (!client) return commandServer(words);
  if (client.kind === 'server') return { name: client.name, config: client.config };
  const raw = readJson(client.json);
  if (!isRecord(raw) || !looksLikeEntry(raw)) {
    throw new Error('The JSON in this command has no server in it: it needs a "command" (a program) or a "url" (a web address).');
  }
  const name = client.name ?? (typeof raw.name === 'string' ? raw.name : '');
  return { name, config: entryConfig(raw, name) };
}

/** Stand-in values (YOUR_API_KEY, ${input:token}) emptied and noted, so none is saved as if real. */
function withoutPlaceholders(server: SnippetServer): SnippetServer {
  const { config, placeholders } = clearPlaceholders(server.config);
  return placeholders.length === 0 ? server : { ...server, config, placeholders };
}

/**
 * Reads what READMEs show: `{"mcpServers": {...}}` (a whole client config too), VS Code's
 * `{"servers": {...}}` and settings.json `{"mcp": {"servers": {...}}}`, a bare `"name": {...}` pair, one
 * entry `{command, args}`, a command line, or a client's add command; inside a Markdown code fence too.
 * Throws with a sentence saying what to do.
 */
export function parseSnippet(text: string): SnippetServer[] {
  const trimmed = stripCodeFence(text.trim());
  if (trimmed === '') throw new Error('Paste a server first: its JSON from a README or a client config, or the command line that starts it.');
  const servers = looksLikeJson(trimmed) ? jsonServers(readJson(trimmed)) : [commandLineServer(trimmed)];
  return servers.map(withoutPlaceholders);
}

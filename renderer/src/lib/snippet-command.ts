/**
 * A pasted command line turned into a server (issue 14, item 6): `npx -y @modelcontextprotocol/server-
 * filesystem /tmp` → command `npx`, args `["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]`,
 * named `filesystem`. Quotes and backslash escapes as a POSIX shell reads them (a Windows path, as a word
 * or after `=`, keeps its backslashes), leading `NAME=value` pairs as environment variables, a lone URL as
 * a web server.
 */
import type { ServerConfigInput } from '../../../shared/config.js';

/** The start of a word that is a Windows path (`\\server\share\…`, `C:\tools\…`), quoted or not: its backslashes are its own. */
const WINDOWS_PATH = /^["']?(?:\\\\|[A-Za-z]:\\)/;

/**
 * The start of a value after `=` that is a Windows path (`--root=\\nas\docs`, `ROOT="C:\x"`). A UNC
 * path must name its host and a backslash after it, so an escape such as `--sep=\\t` is still read as one.
 */
const WINDOWS_PATH_VALUE = /^["']?(?:\\\\[^\\\s"']+\\|[A-Za-z]:\\)/;

/**
 * Splits a command line into words as a shell would (no expansion); throws on an unclosed quote. A
 * backslash escapes as in a POSIX shell, except in a Windows path (a word, or the rest of a word after
 * `=`), where it is kept.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  /** Whether the rest of the word being read is a Windows path. */
  let windows = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (!inWord && !/\s/.test(c)) windows = WINDOWS_PATH.test(line.slice(i));
    else if (c === '=' && !windows) windows = WINDOWS_PATH_VALUE.test(line.slice(i + 1));
    if (windows && c === '\\') {
      word += c;
      inWord = true;
    } else if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && /["\\$`]/.test(line[i + 1] ?? '')) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && line[i + 1] === '\n') {
      i++; // a line continuation
    } else if (c === '\\' && /[\s"'\\]/.test(line[i + 1] ?? '')) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`A ${quote === '"' ? 'double' : 'single'} quote is not closed in this command line: add the closing quote.`);
  if (inWord) words.push(word);
  return words;
}

/** Runners whose first argument that is not an option is the package that is the server. */
const RUNNERS = new Set(['npx', 'uvx', 'bunx', 'pnpx']);

/** A short name from a package or program: `@modelcontextprotocol/server-filesystem@1.2` → `filesystem`. */
function nameFrom(spec: string): string {
  const base = spec
    .replace(/^@[^/]+\//, '')
    .replace(/@[^@/]*$/, '')
    .replace(/^.*[\\/]/, '')
    .replace(/\.(exe|cmd|bat|js|mjs|cjs|py)$/i, '');
  const short = base.replace(/^(mcp-server-|server-|mcp-)/, '').replace(/(-mcp-server|-mcp|-server)$/, '');
  return short || base || 'server';
}

/** File endings that make `name.ext` a program or script rather than a web host. */
const FILE_ENDING = /\.(js|mjs|cjs|ts|py|exe|cmd|bat|sh|ps1|jar|rb|go|json|toml|yaml|yml|txt|md)$/i;

/**
 * The web address a word is: `https://…` as is, and a host with a path (`mcp.notion.com/mcp`, as
 * READMEs print them) read as https:// (http:// for this computer), so it is not taken for a program.
 */
export function webAddress(word: string): string | undefined {
  if (/^https?:\/\//i.test(word)) return word;
  const local = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/\S*)?$/i.test(word);
  if (local) return `http://${word}`;
  const m = /^([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+)(:\d+)?(\/\S*)?$/i.exec(word);
  if (!m) return undefined;
  const host = m[1]!;
  const labels = host.split('.');
  if (!/^[a-z]{2,}$/i.test(labels.at(-1)!)) return undefined; // an IP-like or versioned word (1.2.3)
  // `server.py` is a script; `example.com/mcp`, `host:8080` or `mcp.example.com` is an address.
  if (m[2] === undefined && m[3] === undefined && (labels.length < 3 || FILE_ENDING.test(host))) return undefined;
  return `https://${word}`;
}

/** A remote server at a web address, named from its host (`https://mcp.notion.com/mcp` → `notion`). */
export function webServer(url: string): { name: string; config: ServerConfigInput } {
  let host = 'server';
  try {
    host = new URL(url).hostname.replace(/^(www|mcp|api)\./, '').split('.')[0] || host;
  } catch {
    throw new Error('This web address is not complete: paste it as https://host/path.');
  }
  return { name: host, config: { type: /\/sse\/?$/.test(url) ? 'sse' : 'http', url, headers: {} } };
}

/** The stdio config for a program and its arguments, with a name made from the package it runs. */
export function programServer(command: string, args: string[], env: Record<string, string>): { name: string; config: ServerConfigInput } {
  const runner = command.replace(/^.*[\\/]/, '').replace(/\.(exe|cmd)$/i, '');
  const dlx = runner === 'pnpm' || runner === 'yarn' || runner === 'bun' ? args.indexOf('dlx') : -1;
  const rest = RUNNERS.has(runner) ? args : dlx >= 0 ? args.slice(dlx + 1) : [];
  const spec = rest.find((a) => !a.startsWith('-'));
  const docker = runner === 'docker' ? args.filter((a) => !a.startsWith('-')).at(-1) : undefined;
  return { name: nameFrom(spec ?? docker ?? command), config: { type: 'stdio', command, args, env } };
}

/** The server a command line (already split into words) starts, or a lone web address reaches. */
/** The leading `NAME=value` words of a command line (after an optional `env`), and the words after them. */
export function leadingEnv(words: string[]): { env: Record<string, string>; rest: string[] } {
  const rest = [...words];
  const env: Record<string, string> = {};
  while (rest[0] === 'env' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0] ?? '')) {
    const word = rest.shift()!;
    if (word === 'env') continue;
    const eq = word.indexOf('=');
    env[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return { env, rest };
}

export function commandServer(words: string[]): { name: string; config: ServerConfigInput } {
  const { env, rest } = leadingEnv(words);
  const [command, ...args] = rest;
  if (!command) throw new Error('This command line has no program in it: paste the line that starts the server, such as npx -y <package>.');
  const url = args.length === 0 ? webAddress(command) : undefined;
  if (url) return webServer(url);
  return programServer(command, args, env);
}

/** The server a command line starts (or a lone URL reaches), with a name to offer. */
export function parseCommandLine(line: string): { name: string; config: ServerConfigInput } {
  return commandServer(splitCommandLine(line.replace(/^\$\s+/, '')));
}

/**
 * A pasted command line turned into a server (issue 14, item 6): `npx -y @modelcontextprotocol/server-
 * filesystem /tmp` → command `npx`, args `["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]`,
 * named `filesystem`. Quotes and backslash escapes as a POSIX shell reads them, leading `NAME=value`
 * pairs as environment variables, a lone URL as a web server.
 */
import type { ServerConfigInput } from '../../../shared/config.js';

/** Splits a command line into words as a shell would (no expansion); throws on an unclosed quote. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
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

/** The server a command line starts (or a lone URL reaches), with a name to offer. */
export function parseCommandLine(line: string): { name: string; config: ServerConfigInput } {
  const words = splitCommandLine(line.replace(/^\$\s+/, ''));
  const env: Record<string, string> = {};
  while (words[0] === 'env' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? '')) {
    const word = words.shift()!;
    if (word === 'env') continue;
    const eq = word.indexOf('=');
    env[word.slice(0, eq)] = word.slice(eq + 1);
  }
  const [command, ...args] = words;
  if (!command) throw new Error('This command line has no program in it: paste the line that starts the server, such as npx -y <package>.');
  if (/^https?:\/\//i.test(command) && args.length === 0) {
    let host = 'server';
    try {
      host = new URL(command).hostname.replace(/^(www|mcp|api)\./, '').split('.')[0] || host;
    } catch {
      throw new Error('This web address is not complete: paste it as https://host/path.');
    }
    return { name: host, config: { type: /\/sse\/?$/.test(command) ? 'sse' : 'http', url: command, headers: {} } };
  }
  const runner = command.replace(/^.*[\\/]/, '').replace(/\.(exe|cmd)$/i, '');
  const dlx = runner === 'pnpm' || runner === 'yarn' || runner === 'bun' ? args.indexOf('dlx') : -1;
  const rest = RUNNERS.has(runner) ? args : dlx >= 0 ? args.slice(dlx + 1) : [];
  const spec = rest.find((a) => !a.startsWith('-'));
  const docker = runner === 'docker' ? args.filter((a) => !a.startsWith('-')).at(-1) : undefined;
  return { name: nameFrom(spec ?? docker ?? command), config: { type: 'stdio', command, args, env } };
}

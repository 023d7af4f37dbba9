/**
 * READMEs often show the command that adds a server to one client: `claude mcp add memory -- npx -y
 * @modelcontextprotocol/server-memory`, `claude mcp add --transport http notion https://mcp.notion.com/mcp`,
 * `code --add-mcp '{"name":…}'`. Read as a plain command line, Spillway would start `claude` itself (and
 * Test would change Claude Code's config), so these are read into the server they describe instead.
 */
import type { ServerConfigInput } from '../../../shared/config.js';
import { programServer, webAddress } from './snippet-command.js';

/** What a client's add command describes: a server read from its options, or a JSON entry to read. */
export type ClientCommand =
  | { kind: 'server'; name: string; config: ServerConfigInput }
  /** `name` is undefined when the JSON holds it (`code --add-mcp`). */
  | { kind: 'json'; name: string | undefined; json: string };

/** CLIs whose `mcp add` takes `[options] <name> <commandOrUrl> [args…]` (Claude Code, Gemini CLI, Codex). */
const MCP_CLIS = new Set(['claude', 'gemini', 'codex']);
const VS_CODES = new Set(['code', 'code-insiders']);

/** Options of `mcp add` that take a value; `-e` and `-H` take several (commander's variadic options). */
const VALUED = new Set([
  '-s',
  '--scope',
  '-t',
  '--transport',
  '--client-id',
  '--client-secret',
  '--callback-port',
  '--url',
  '--bearer-token-env-var',
]);
const ENV = new Set(['-e', '--env']);
const HEADER = new Set(['-H', '--header']);

const programName = (word: string) => word.replace(/^.*[\\/]/, '').replace(/\.(exe|cmd)$/i, '');
const isEnvPair = (word: string | undefined) => word !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);
const isHeaderPair = (word: string | undefined) => word !== undefined && /^[^\s:]+:/.test(word) && !/^https?:/i.test(word);

/** `--opt=value` as two words, so both spellings read the same. */
function splitEquals(words: string[]): string[] {
  return words.flatMap((w) => (/^--[a-z-]+=/.test(w) ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w]));
}

function addEnv(env: Record<string, string>, pair: string) {
  const eq = pair.indexOf('=');
  env[pair.slice(0, eq)] = pair.slice(eq + 1);
}

function addHeader(headers: Record<string, string>, pair: string) {
  const colon = pair.indexOf(':');
  headers[pair.slice(0, colon).trim()] = pair.slice(colon + 1).trim();
}

/** `<cli> mcp add [options] <name> [--] <commandOrUrl> [args…]` read into the server it adds. */
function mcpAdd(cli: string, words: string[]): ClientCommand {
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const options: Record<string, string> = {};
  const positional: string[] = [];
  let i = 0;
  for (; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') break;
    // Once the program is known, its own options belong to it (`claude mcp add x npx -y pkg`).
    if (positional.length >= 2 && word.startsWith('-') && !ENV.has(word) && !HEADER.has(word) && !VALUED.has(word)) {
      positional.push(word);
    } else if (ENV.has(word)) {
      while (isEnvPair(words[i + 1])) addEnv(env, words[++i]!);
    } else if (HEADER.has(word)) {
      while (isHeaderPair(words[i + 1])) addHeader(headers, words[++i]!);
    } else if (VALUED.has(word)) {
      options[word.replace(/^-+/, '')] = words[++i] ?? '';
    } else if (word.startsWith('-')) {
      continue; // a flag of the CLI's own, such as --debug
    } else {
      positional.push(word);
    }
  }
  const [name, ...target] = positional;
  target.push(...words.slice(i + 1));
  if (!name) throw new Error(`This ${cli} command names no server: paste the whole line, such as ${cli} mcp add <name> -- npx -y <package>.`);
  const transport = (options.transport ?? options.t ?? '').toLowerCase();
  const url = options.url ?? (target.length === 1 || transport === 'http' || transport === 'sse' ? webAddress(target[0] ?? '') : undefined);
  if (url) {
    const type = transport === 'sse' || (transport === '' && /\/sse\/?$/.test(url)) ? 'sse' : 'http';
    const clientId = options['client-id'];
    return { kind: 'server', name, config: { type, url, headers, ...(clientId ? { oauthClientId: clientId } : {}) } };
  }
  const [command, ...args] = target;
  if (!command) {
    throw new Error(`This ${cli} command has no program or web address for "${name}": paste the part after -- as well, such as -- npx -y <package>.`);
  }
  return { kind: 'server', name, config: programServer(command, args, env).config };
}

/**
 * What a client's add command describes, or undefined when the words are not one (then they are a
 * server's own command line). Throws, in a sentence, on a client command that adds no server.
 */
export function readClientCommand(words: string[]): ClientCommand | undefined {
  const cli = programName(words[0] ?? '');
  if (VS_CODES.has(cli)) {
    const rest = splitEquals(words.slice(1));
    const at = rest.indexOf('--add-mcp');
    if (at < 0) return undefined;
    const json = rest[at + 1];
    if (!json) throw new Error('This code --add-mcp command has no server after it: copy the whole line, the JSON in quotes included.');
    return { kind: 'json', name: undefined, json };
  }
  if (!MCP_CLIS.has(cli) || words[1] !== 'mcp') return undefined;
  const sub = words[2];
  if (sub === 'add') return mcpAdd(cli, splitEquals(words.slice(3)));
  if (sub === 'add-json') {
    const positional = words.slice(3).filter((w, i, all) => !w.startsWith('-') && !VALUED.has(all[i - 1] ?? ''));
    const [name, json] = positional;
    if (!name || !json) throw new Error(`This ${cli} mcp add-json command needs a name and the JSON in quotes: copy the whole line.`);
    return { kind: 'json', name, json };
  }
  if (sub === 'serve') return undefined; // `claude mcp serve` is itself a server
  throw new Error(
    `This is a command that manages ${cli}'s own servers, not one that starts a server: paste the server's JSON, or its "${cli} mcp add …" line.`,
  );
}

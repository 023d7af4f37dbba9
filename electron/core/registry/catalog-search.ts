/**
 * Searching the catalog by words. The MCP Registry's `search` is one case-insensitive substring of the
 * server's name only (`server_name ILIKE '%…%'`), so a title as the list shows it ("Redis MCP Server")
 * finds nothing there. The registry is asked for the one most telling word, and what comes back is kept
 * when every word appears in its name, title or description, best matches first. Of the name, only the
 * words that tell the server apart count: the part after `/` and the owner (`hashicorp` of
 * `io.github.hashicorp/…`), not the hosting words every name there holds (`io.github`), unless the word
 * is written like a name (`io.github.hashicorp`, a whole registry name).
 */
import type { ServerResponse } from './server-json.js';

type Searched = Pick<ServerResponse['server'], 'name' | 'title' | 'description'>;

/** Words too common in server names and titles to narrow the registry's answer. */
const COMMON = new Set(['mcp', 'server', 'servers', 'the', 'a', 'an', 'and', 'or', 'for', 'of', 'to', 'in', 'on', 'with', 'tool', 'tools']);

/** The query's words, lower-cased, without the quotes and punctuation around them (none for an empty query). */
export function searchWords(query: string | undefined): string[] {
  return (query ?? '')
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}+#]+$/gu, ''))
    .filter((w) => w !== '');
}

/** The one word the registry is asked for: the longest uncommon one (names hold "redis", rarely "server"). */
export function registryWord(words: readonly string[]): string | undefined {
  return required(words).reduce<string | undefined>((best, w) => (best === undefined || w.length > best.length ? w : best), undefined);
}

/** The words a server must hold: common ones ("mcp", "server") only when there is nothing else. */
function required(words: readonly string[]): readonly string[] {
  const telling = words.filter((w) => !COMMON.has(w));
  return telling.length > 0 ? telling : words;
}

/**
 * Every word appears in the server's name, title or description. Common words are left out when the
 * query has others: "Memory MCP server" finds the server-memory entry, whose text never says "mcp".
 */
export function matchesWords(server: Searched, words: readonly string[]): boolean {
  const text = `${ownName(server.name)}\n${server.title ?? ''}\n${server.description}`.toLowerCase();
  const fullName = server.name.toLowerCase();
  // A word written like a name (`com.neon`, `io.github.hashicorp`, a whole `ns/name`) is looked for in the full name.
  return required(words).every((w) => (/[./]/.test(w) && fullName.includes(w)) || text.includes(w));
}

/**
 * The words of a name that are its own: the namespace's last part (the owner or company: `hashicorp` of
 * `io.github.hashicorp`, `neon` of `com.neon`) and the part after `/`. "github" would otherwise find
 * every server published under a GitHub account.
 */
function ownName(name: string): string {
  const slash = name.indexOf('/');
  if (slash < 0) return name;
  return `${name.slice(0, slash).split('.').pop() ?? ''}/${name.slice(slash + 1)}`;
}

/** How well a server matches: the title or name said in full, then every word in them, then the description needed. */
function rank(server: Searched, words: readonly string[]): number {
  const phrase = words.join(' ');
  const title = (server.title ?? '').toLowerCase();
  const name = server.name.toLowerCase();
  if (title === phrase || name.split('/').pop() === words.join('-')) return 3;
  const named = `${ownName(name)}\n${title}`;
  if (required(words).every((w) => named.includes(w))) return 2;
  return 1;
}

/** The responses that match every word, best first (the registry's order kept among equals). */
export function findByWords(responses: readonly ServerResponse[], words: readonly string[]): ServerResponse[] {
  return responses
    .filter((r) => matchesWords(r.server, words))
    .map((r, i) => ({ r, i, score: rank(r.server, words) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map(({ r }) => r);
}

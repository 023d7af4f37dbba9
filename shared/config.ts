/**
 * The whole Spillway config: zod schema, defaults, migrations, and the `mcpServers` import form. Its
 * `settings` key is in settings.ts.
 * Runtime-neutral: no node:*, no electron, no DOM.
 */
import { z } from 'zod';
import { plainIssue } from './plain-issues.js';
import { findUnknownKeys, closestKey, type UnknownKey } from './config-unknown-keys.js';
import { SERVER_FIELDS, SERVER_ID_PATTERN, serverId, StoredServerConfigSchema, stringMap, type ServerConfigInput } from './server-config.js';
import { jsonSyntaxError } from './json-syntax.js';
import { PoliciesSchema, emptyPolicies } from './policy.js';
import { CompressionSettingsSchema, SettingsSchema, SpillSettingsSchema } from './settings.js';

export * from './server-config.js';
export * from './settings.js';
export type { UnknownKey } from './config-unknown-keys.js';

export const CONFIG_VERSION = 1;

export const ConfigSchema = z
  .object({
    version: z.literal(CONFIG_VERSION),
    servers: z.record(serverId, StoredServerConfigSchema).default({}),
    settings: SettingsSchema.default(() => SettingsSchema.parse({})),
    /**
     * Per-server and per-tool policies (issue 5). A server's enabled, prefix and timeoutMs live in its
     * ServerConfig only (one source of truth); policies.servers holds exposure and the result fields.
     */
    policies: PoliciesSchema.default(emptyPolicies),
  })
  // Unknown top-level keys (e.g. the desktop shell's own electron-store entries) are kept, not dropped.
  .passthrough();
export type Config = z.infer<typeof ConfigSchema>;

export function defaultConfig(): Config {
  return ConfigSchema.parse({ version: CONFIG_VERSION });
}

/** A config problem, with the field path and (when known) the file. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly field?: string,
    readonly file?: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Turns a zod error into the field's path and one plain sentence naming the setting (shared/plain-issues.ts). */
export function describeZodError(error: z.ZodError, prefix = ''): { field: string; message: string } {
  const issue = error.issues[0];
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  return { field: path || '(root)', message: plainIssue(issue) };
}

/** A short, stable code for a text (FNV-1a of its UTF-8 bytes, in base 36): the same name always gets the same code. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(36);
}

/** A letter or digit outside Latin and 0-9 (after NFKD, so `Café` and `１` count as Latin and 0-9). */
const OTHER_SCRIPT = /(?![\p{Script=Latin}0-9])[\p{L}\p{N}]/u;

/**
 * Makes a server id from any name: lower-case slug of [a-z0-9_-]. A name with letters or digits outside
 * Latin gets the code of the whole name after its Latin and digit part ("Сервер 1" → `1-<code>`), or after
 * `server` when it has none ("日本語" → `server-<code>`), so names that differ only in those letters get
 * ids (and tool prefixes) that tell them apart. A name with no letters or digits ("!!!") gets `server`.
 */
export function slugServerId(name: string): string {
  const plain = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const slug = plain
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (OTHER_SCRIPT.test(plain) || (slug === '' && /[\p{L}\p{N}]/u.test(plain))) {
    // The code is at most 7 characters, so the id stays within 40 with its dash.
    const start = slug.slice(0, 32).replace(/-+$/, '') || 'server';
    return `${start}-${shortHash(name.trim().normalize('NFC'))}`;
  }
  if (slug.slice(0, 40) === '__proto__') return 'proto';
  return slug.slice(0, 40) || 'server';
}

/** Picks an id not yet in `taken`, adding -2, -3... */
export function uniqueServerId(name: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  const base = slugServerId(name);
  if (!used.has(base)) return base;
  for (let i = 2; ; i++) {
    const candidate = `${base.slice(0, 36)}-${i}`;
    if (!used.has(candidate)) return candidate;
  }
}

const McpServerEntrySchema = z
  .object({
    command: z.string().optional(),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().optional(),
    url: z.string().optional(),
    serverUrl: z.string().optional(),
    httpUrl: z.string().optional(),
    headers: stringMap.optional(),
    type: z.string().optional(),
    transport: z.string().optional(),
    prefix: z.boolean().optional(),
    disabled: z.boolean().optional(),
    enabled: z.boolean().optional(),
  })
  .passthrough();

/** Converts one `mcpServers` entry (Claude Desktop / Cursor / Windsurf / Gemini style) to a ServerConfig input. */
export function fromMcpServerEntry(raw: unknown, path: string): ServerConfigInput {
  const parsed = McpServerEntrySchema.safeParse(raw);
  if (!parsed.success) {
    const { field, message } = describeZodError(parsed.error, path);
    throw new ConfigError(`${path}: ${message}`, field);
  }
  const e = parsed.data;
  const common = {
    ...(e.prefix !== undefined ? { prefix: e.prefix } : {}),
    ...(e.disabled === true || e.enabled === false ? { enabled: false } : {}),
  };
  const url = e.url ?? e.serverUrl ?? e.httpUrl;
  if (e.command) {
    return { type: 'stdio', command: e.command, args: e.args ?? [], env: e.env ?? {}, cwd: e.cwd, ...common };
  }
  if (url) {
    const kind = (e.type ?? e.transport ?? '').toLowerCase();
    const sse = kind === 'sse' || (kind === '' && !e.httpUrl && /\/sse\/?$/.test(url));
    return { type: sse ? 'sse' : 'http', url, headers: e.headers ?? {}, ...common };
  }
  throw new ConfigError(`${path}: needs either "command" (stdio) or "url" (HTTP)`, path);
}

type Migration = (raw: Record<string, unknown>) => Record<string, unknown>;
/** MIGRATIONS[n] upgrades a version-n config to n+1. */
const MIGRATIONS: Record<number, Migration> = {
  // Version 0 was the bare `mcpServers` form; it is handled by importMcpServers.
};

export interface ParsedConfig {
  config: Config;
  /** The file was not in Spillway's own form (an `mcpServers` file, or an older version): back it up before the first write. */
  foreign: boolean;
  /** Keys of the file Spillway does not know: left out of `config`, written back at each save (config-unknown-keys.ts). */
  unknown: UnknownKey[];
  /** One sentence for each unknown key, to log at load. */
  warnings: string[];
}

/**
 * Imports `{mcpServers: {...}}` into Spillway's form, slugging names into ids. The names that are usable
 * ids already are kept first, so a slug never lands on one of them ("My Server" next to "my-server"
 * becomes my-server-2): every server of the file is imported.
 */
export function importMcpServers(raw: Record<string, unknown>): Record<string, unknown> {
  const servers: Record<string, ServerConfigInput> = {};
  const entries = raw.mcpServers;
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) {
    throw new ConfigError('mcpServers: must be an object of servers', 'mcpServers');
  }
  const taken = new Set(Object.keys(entries).filter((name) => SERVER_ID_PATTERN.test(name)));
  for (const [name, entry] of Object.entries(entries as Record<string, unknown>)) {
    let id = name;
    if (!SERVER_ID_PATTERN.test(name)) {
      id = uniqueServerId(name, taken);
      taken.add(id);
    }
    servers[id] = fromMcpServerEntry(entry, `mcpServers.${name}`);
  }
  const { mcpServers: _dropped, ...rest } = raw;
  return { ...rest, version: CONFIG_VERSION, servers };
}

/**
 * Parses config text of any accepted form. Throws ConfigError naming the field (and `file`, when given).
 * Never mutates anything: the caller decides whether to write.
 */
export function parseConfig(text: string, file?: string): ParsedConfig {
  const where = file ? ` in ${file}` : '';
  let raw: unknown;
  if (text.trim() === '') return { config: defaultConfig(), foreign: false, unknown: [], warnings: [] };
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    // Not JSON.parse's own message: V8 quotes the text around the fault, which may be a secret typed in.
    throw new ConfigError(`The config is not valid JSON${where}${jsonSyntaxError(text.replace(/^\uFEFF/, ''))}`, undefined, file);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`The config must be a JSON object${where}`, '(root)', file);
  }
  let obj = raw as Record<string, unknown>;
  let foreign = false;
  try {
    if (obj.version === undefined && 'mcpServers' in obj) {
      obj = importMcpServers(obj);
      foreign = true;
    } else if (obj.version === undefined) {
      obj = { ...obj, version: CONFIG_VERSION };
    }
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`${err.message}${where}`, err.field, file);
    throw err;
  }
  if (typeof obj.version !== 'number' || !Number.isInteger(obj.version)) {
    throw new ConfigError(`version: must be a whole number${where}`, 'version', file);
  }
  if (obj.version > CONFIG_VERSION) {
    throw new ConfigError(
      `version: this config was written by a newer Spillway (version ${obj.version}; this one reads up to ${CONFIG_VERSION})${where}`,
      'version',
      file,
    );
  }
  while ((obj.version as number) < CONFIG_VERSION) {
    const migrate = MIGRATIONS[obj.version as number];
    if (!migrate) throw new ConfigError(`version: no migration from version ${obj.version}${where}`, 'version', file);
    obj = migrate(obj);
    foreign = true;
  }
  // zod drops a `__proto__` key without a word (JSON.parse makes it an own key): name it instead.
  if (obj.servers && typeof obj.servers === 'object' && Object.hasOwn(obj.servers, '__proto__')) {
    throw new ConfigError(`Invalid config${where}: servers.__proto__: not a usable server id`, 'servers.__proto__', file);
  }
  // The input in each issue lets a missing server "type" be told from a wrong one (plain-issues.ts).
  const result = ConfigSchema.safeParse(obj, { reportInput: true });
  if (!result.success) {
    const { field, message } = describeZodError(result.error);
    // A file is fixed by hand: where in it, then what is wrong.
    throw new ConfigError(`Invalid config${where}, at ${field}: ${message}`, field, file);
  }
  const unknown = findUnknownKeys(obj, result.data);
  return { config: result.data, foreign, unknown, warnings: unknownKeyWarnings(unknown, result.data, file) };
}

/** The keys Spillway knows where `path` points (the last key being the unknown one). */
function knownKeysAt(path: readonly string[], config: Config): readonly string[] {
  const [top, second, third] = path;
  if (top === 'settings' && path.length === 2) return Object.keys(SettingsSchema.shape);
  if (top === 'settings' && second === 'spill' && path.length === 3) return Object.keys(SpillSettingsSchema.shape);
  if (top === 'settings' && second === 'compression' && path.length === 3) return Object.keys(CompressionSettingsSchema.shape);
  if (top === 'servers' && second !== undefined && third !== undefined && path.length === 3) {
    const server = Object.hasOwn(config.servers, second) ? config.servers[second] : undefined;
    return server ? SERVER_FIELDS[server.type] : [];
  }
  return [];
}

/**
 * Names each unknown key once: Spillway ignores it but keeps it in the file (it may be a newer
 * Spillway's), with the known key it was most likely meant to be. The value is never quoted: it may be a secret.
 */
export function unknownKeyWarnings(unknown: readonly UnknownKey[], config: Config, file?: string): string[] {
  const where = file ? ` in ${file}` : '';
  return unknown.map(({ path }) => {
    const what = path[0] === 'servers' ? 'server field' : 'setting';
    const name = path.join('.');
    const meant = closestKey(path.at(-1)!, knownKeysAt(path, config));
    if (meant !== undefined) {
      return `Spillway does not know the ${what} ${name}${where}, so it has no effect: did you mean "${meant}"? Correct it in the file, then restart Spillway.`;
    }
    return (
      `Spillway does not know the ${what} ${name}${where}, so it has no effect; it stays in the file (a newer Spillway may use it). ` +
      'If it is a typo, correct it in the file, then restart Spillway.'
    );
  });
}

/** Serializes the config the way conf/electron-store do (tab-indented JSON), so both read the same file. */
export function serializeConfig(config: Config): string {
  return `${JSON.stringify(config, undefined, '\t')}\n`;
}

import type { ListDir } from './os-paths.js';
import type { ClientId, EntryKind, OsFacts, ServerSpec, ServerTransport, SpillwayEntry } from './types.js';

/** Where a client keeps its servers. */
export interface ConfigLocation {
  /** Config files, most preferred first: servers are read from all that exist; writes go to the first that exists, else the first. */
  files: string[];
  /** Folders whose existence means the client is installed. */
  installDirs: string[];
}

/** Everything that differs between clients: paths, format, and how an entry is spelled in its file. */
export interface ClientDefinition {
  id: ClientId;
  displayName: string;
  format: 'json' | 'toml';
  /** Whether the client's own reader accepts comments (JSONC). Comments are kept in any case. */
  commentsAllowed: boolean;
  /** Entry kinds it can use, the one Spillway should pick first. */
  kinds: readonly EntryKind[];
  /** Key path of the servers table (`mcpServers`, `servers`, `context_servers`, `mcp_servers`). */
  serversPath: readonly string[];
  locate(os: OsFacts, listDir: ListDir): Promise<ConfigLocation>;
  /** Spillway's entry in this client's spelling. */
  toNative(entry: SpillwayEntry): Record<string, unknown>;
  /** One of its servers, normalized; undefined when the value is not an object. */
  fromNative(name: string, value: unknown, file: string): ServerSpec | undefined;
  /** Keys of our entry that Spillway manages; any other key a user added to it (autoApprove, disabled...) is kept. */
  ownedKeys: readonly string[];
  /** Whether the client must be restarted to see a change to its file. */
  restartRequired: boolean;
  restartHint: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringRecord(v: unknown): Record<string, string> | undefined {
  if (!isRecord(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) if (val !== undefined && val !== null) out[k] = String(val);
  return out;
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.map((x) => String(x)) : undefined;
}

export interface NormalizeOptions {
  /** Keys that may hold the URL, in the order the client prefers them, each with the transport it implies. */
  urlKeys?: ReadonlyArray<readonly [key: string, transport: 'http' | 'sse' | 'by-type']>;
  headerKeys?: readonly string[];
  /** Transport of a URL whose `type` says nothing. */
  untypedUrl?: 'http' | 'sse';
}

const HTTP_TYPES = new Set(['http', 'streamable-http', 'streamableHttp', 'streamable_http', 'remote']);

/** A server entry as most clients spell it (command/args/env or url/headers, optional type). */
export function normalizeServer(name: string, value: unknown, file: string, options: NormalizeOptions = {}): ServerSpec | undefined {
  if (!isRecord(value)) return undefined;
  const spec: ServerSpec = { name, transport: 'unknown', file };
  const type = typeof value.type === 'string' ? value.type : typeof value.transportType === 'string' ? value.transportType : undefined;
  if (type !== undefined) spec.type = type;
  if (typeof value.command === 'string') {
    spec.command = value.command;
    spec.args = stringList(value.args) ?? [];
    const env = stringRecord(value.env);
    if (env) spec.env = env;
    spec.transport = 'stdio';
    return spec;
  }
  for (const [key, implied] of options.urlKeys ?? [['url', 'by-type']]) {
    if (typeof value[key] !== 'string') continue;
    spec.url = value[key];
    let transport: ServerTransport;
    if (implied !== 'by-type') transport = implied;
    else if (type === 'sse') transport = 'sse';
    else if (type !== undefined && HTTP_TYPES.has(type)) transport = 'http';
    else transport = options.untypedUrl ?? 'http';
    spec.transport = transport;
    for (const hk of options.headerKeys ?? ['headers']) {
      const headers = stringRecord(value[hk]);
      if (headers) {
        spec.headers = headers;
        break;
      }
    }
    return spec;
  }
  return spec;
}

/** `{command, args, env?}` with an optional `type` first; env only when it has variables. */
export function stdioNative(entry: Extract<SpillwayEntry, { kind: 'stdio' }>, type?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (type) out.type = type;
  out.command = entry.command;
  out.args = [...entry.args];
  if (entry.env && Object.keys(entry.env).length > 0) out.env = { ...entry.env };
  return out;
}

/**
 * Our entry updated in place: the managed keys come from `native` (in its order), any other key
 * the user added to our entry stays.
 */
export function mergeEntry(existing: unknown, native: Record<string, unknown>, ownedKeys: readonly string[]): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...native };
  if (isRecord(existing)) {
    for (const [k, v] of Object.entries(existing)) {
      if (!ownedKeys.includes(k) && !(k in merged)) merged[k] = v;
    }
  }
  return merged;
}

export { isRecord };

import { CLIENT_IDS } from '../../../shared/api-clients.js';

/** The MCP clients Spillway can configure; also the ids used by the CLI and the control API (one list, in shared/). */
export { CLIENT_IDS };

export type ClientId = (typeof CLIENT_IDS)[number];

export type Platform = 'darwin' | 'win32' | 'linux';

/**
 * What the client modules know about the machine. Given by the caller (the composition root reads
 * `os.homedir()`, `process.platform`, `process.env`); tests point every folder at a temp dir.
 */
export interface OsFacts {
  home: string;
  platform: Platform;
  env: Record<string, string | undefined>;
}

/** The name of the one entry Spillway owns in every client's file. */
export const SPILLWAY_ENTRY_NAME = 'spillway';

/** Spillway's entry as a stdio command: the bridge (Claude Desktop and other stdio-only clients). */
export interface StdioEntry {
  kind: 'stdio';
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** Spillway's entry as a Streamable HTTP URL with the client's own bearer token in `headers`. */
export interface HttpEntry {
  kind: 'http';
  url: string;
  headers: Record<string, string>;
}

export type SpillwayEntry = StdioEntry | HttpEntry;

export type EntryKind = SpillwayEntry['kind'];

/** How a client's server entry is reached, normalized across the clients' own spellings. */
export type ServerTransport = 'stdio' | 'http' | 'sse' | 'unknown';

/** A server as a client's file has it, normalized (field names as in most clients' files). */
export interface ServerSpec {
  name: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  /** The client's own `type` field, if it has one. */
  type?: string;
  transport: ServerTransport;
  /** The file it came from (clients with more than one file, e.g. Cline). */
  file: string;
}

/** The fields whose difference makes Spillway's entry stale (wrong port or token, moved executable). */
export type EntryField = 'kind' | 'command' | 'args' | 'env' | 'url' | 'headers';

export type EntryState = { state: 'absent' } | { state: 'current' } | { state: 'stale'; differs: EntryField[] };

/** A client's server offered for import into Spillway's upstreams. */
export type ImportCandidate =
  | { name: string; kind: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { name: string; kind: 'http' | 'sse'; url: string; headers: Record<string, string> };

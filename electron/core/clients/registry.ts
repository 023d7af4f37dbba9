import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { listBackups, type BackupOptions, type BackupRecord, type WriteReason } from './backup-store.js';
import { claudeCode } from './claude-code.js';
import { claudeDesktop } from './claude-desktop.js';
import { cline } from './cline.js';
import {
  applyConnect,
  applyDisconnect,
  connectChange,
  detectClient,
  entryState,
  entryTextOf,
  parseServers,
  REWRITE_NOTE,
  readClientServers,
  specsOf,
  type ClientDetection,
  type TextChange,
} from './client-config.js';
import type { ClientDefinition } from './client-definition.js';
import { codex } from './codex.js';
import { disconnectGivingBack, entryHolders, filesDisconnectDeletes } from './connect-origin.js';
import { UnsupportedEntryError } from './config-errors.js';
import { cursor } from './cursor.js';
import { geminiCli } from './gemini-cli.js';
import { lmStudio } from './lm-studio.js';
import { listDirOnDisk, type ListDir } from './os-paths.js';
import { candidateIdentity } from './same-server.js';
import { restoreLatestBackup, type RestoreOutcome } from './restore-backup.js';
import { decodeConfigText, editConfigFile, readSnapshot, removeInterruptedWrites, type EditOptions } from './safe-write.js';
import {
  CLIENT_IDS,
  SPILLWAY_ENTRY_NAME,
  type ClientId,
  type EntryKind,
  type EntryState,
  type ImportCandidate,
  type OsFacts,
  type ServerSpec,
  type SpillwayEntry,
} from './types.js';
import { redactEntryText } from './redact-entry.js';
import { entryDigestOf, undoChange } from './undo-change.js';
import { vscode } from './vscode.js';
import { windsurf } from './windsurf.js';
import { zed } from './zed.js';

/** Every client module, by id. */
export const CLIENT_DEFINITIONS: Readonly<Record<ClientId, ClientDefinition>> = {
  'claude-desktop': claudeDesktop,
  'claude-code': claudeCode,
  cursor,
  vscode,
  windsurf,
  cline,
  zed,
  'lm-studio': lmStudio,
  'gemini-cli': geminiCli,
  codex,
};

export interface ClientRegistryOptions {
  os: OsFacts;
  /** Root folder of the backups; each client's go in `<backupDir>/<clientId>/`. */
  backupDir: string;
  now?: () => Date;
  /** Backups kept per client (default 50). */
  keepBackups?: number;
  /** Folder listing used to find a Microsoft Store install of Claude Desktop (injected in tests). */
  listDir?: ListDir;
}

export interface ClientStatus extends ClientDetection {
  id: ClientId;
  displayName: string;
  format: 'json' | 'toml';
  kinds: readonly EntryKind[];
  /** The kind Spillway should write for this client. */
  preferredKind: EntryKind;
  restartRequired: boolean;
  restartHint: string;
  /** Spillway's entry as it is in the file, or null. */
  entry: ServerSpec | null;
  /** How many other servers the file lists. */
  otherServers: number;
  /** Compared with the desired entry, when one was given. */
  state?: EntryState;
  /** Why the file could not be read (malformed, unreadable); the client is still listed. */
  error?: string;
}

/** What to show the user before a write, as the MCP spec asks: the exact entry, and where it goes. */
export interface ConsentPreview {
  client: ClientId;
  clientName: string;
  file: string;
  action: 'add' | 'update' | 'none';
  /** Our entry exactly as it will stand in the file (its indentation, its format). */
  entryText: string;
  /** The same with bearer tokens and secret-looking env values masked, for logs and screenshots. */
  redactedEntryText: string;
  /** Servers that will be removed from the file because they now run behind Spillway. */
  removes: string[];
  /** Anything else the user should know: file created, comments lost, restart needed. */
  notes: string[];
  restartRequired: boolean;
}

export interface ChangeOutcome {
  client: ClientId;
  file: string;
  /** False when the file already said this (nothing written, no backup). */
  changed: boolean;
  backup?: BackupRecord;
  /** A TOML file was re-serialized as a whole (comments lost, some values written differently); false for every JSON file. */
  rewritten: boolean;
  /** Every file the action changed (`file` is the first): Cline keeps its servers in two. */
  files: string[];
  restartRequired: boolean;
  restartHint: string;
}

export { redactEntryText };

export type DesiredEntries = (id: ClientId) => SpillwayEntry | undefined;

export interface ClientRegistry {
  readonly ids: readonly ClientId[];
  definition(id: ClientId): ClientDefinition;
  /** All known clients, detected or not, with Spillway's entry and (given desired entries) its state. */
  list(desired?: DesiredEntries): Promise<ClientStatus[]>;
  get(id: ClientId, desired?: SpillwayEntry): Promise<ClientStatus>;
  readServers(id: ClientId): Promise<ServerSpec[]>;
  state(id: ClientId, desired: SpillwayEntry): Promise<EntryState>;
  consent(id: ClientId, entry: SpillwayEntry, replace?: readonly string[]): Promise<ConsentPreview>;
  /** Writes Spillway's entry; `reason` 'repair' when Spillway updates it by itself (Restore skips those backups). */
  connect(id: ClientId, entry: SpillwayEntry, reason?: 'connect' | 'repair'): Promise<ChangeOutcome>;
  disconnect(id: ClientId): Promise<ChangeOutcome>;
  /** The files Disconnect would delete now (ones Connect created that hold nothing else); for its preview. */
  disconnectDeletes(id: ClientId): Promise<string[]>;
  importCandidates(id: ClientId): Promise<ImportCandidate[]>;
  replaceWithSpillway(id: ClientId, names: readonly string[], entry: SpillwayEntry): Promise<ChangeOutcome>;
  /**
   * Undoes the latest change made through Spillway. `ours`: whether a "spillway" entry another program wrote
   * since is this Spillway's all the same (written from its data folder); one that is not, nor the entry a
   * write of Spillway left, is not overwritten.
   */
  restore(id: ClientId, ours?: (spec: ServerSpec) => boolean): Promise<RestoreOutcome>;
  backups(id: ClientId): Promise<BackupRecord[]>;
  /** Removes what writes cut short left beside every client's files (temp copies holding tokens and secrets). */
  removeInterruptedWrites(): Promise<void>;
}

/** The key Spillway deduplicates imported servers by: command, args and env, or URL and headers. */
export function importKey(candidate: ImportCandidate): string {
  return candidateIdentity(candidate);
}

/** A client's server as something Spillway can run as an upstream; undefined when it is not one. */
export function toImportCandidate(spec: ServerSpec): ImportCandidate | undefined {
  if (spec.transport === 'stdio' && spec.command) {
    return { name: spec.name, kind: 'stdio', command: spec.command, args: spec.args ?? [], env: spec.env ?? {} };
  }
  if ((spec.transport === 'http' || spec.transport === 'sse') && spec.url) {
    return { name: spec.name, kind: spec.transport, url: spec.url, headers: spec.headers ?? {} };
  }
  return undefined;
}

export function createClientRegistry(options: ClientRegistryOptions): ClientRegistry {
  const { os } = options;
  const listDir = options.listDir ?? listDirOnDisk;

  function definition(id: ClientId): ClientDefinition {
    const def = Object.hasOwn(CLIENT_DEFINITIONS, id) ? CLIENT_DEFINITIONS[id] : undefined;
    if (!def) throw new Error(`Unknown client "${id}". Known clients: ${CLIENT_IDS.join(', ')}.`);
    return def;
  }

  function backupsOf(id: ClientId): BackupOptions {
    return { dir: join(options.backupDir, id), now: options.now, keep: options.keepBackups };
  }

  async function status(id: ClientId, desired?: SpillwayEntry): Promise<ClientStatus> {
    const def = definition(id);
    const detection = await detectClient(def, os, listDir);
    const base: ClientStatus = {
      id,
      displayName: def.displayName,
      format: def.format,
      kinds: def.kinds,
      preferredKind: def.kinds[0],
      restartRequired: def.restartRequired,
      restartHint: def.restartHint,
      ...detection,
      entry: null,
      otherServers: 0,
    };
    try {
      const servers = await readClientServers(def, detection);
      base.entry = servers.find((s) => s.name === SPILLWAY_ENTRY_NAME) ?? null;
      base.otherServers = servers.filter((s) => s.name !== SPILLWAY_ENTRY_NAME).length;
      if (desired) base.state = entryState(base.entry ?? undefined, desired);
    } catch (e) {
      base.error = (e as Error).message;
    }
    return base;
  }

  async function readTarget(def: ClientDefinition): Promise<{ file: string; text: string; existed: boolean }> {
    const detection = await detectClient(def, os, listDir);
    const snapshot = await readSnapshot(detection.configPath);
    return { file: detection.configPath, text: decodeConfigText(snapshot.bytes, detection.configPath).text, existed: snapshot.bytes !== null };
  }

  function assertKind(def: ClientDefinition, entry: SpillwayEntry): void {
    if (!def.kinds.includes(entry.kind)) throw new UnsupportedEntryError(def.displayName, entry.kind);
  }

  /**
   * Applies `edit` to `configPath` (the file Spillway writes, unless another file holds the entry to remove).
   * `entry`: the entry it writes; an HTTP one carries the client's bearer token, so the file becomes the owner's only.
   */
  async function write(
    id: ClientId,
    edit: (text: string, file: string) => TextChange,
    reason: Extract<WriteReason, 'connect' | 'disconnect' | 'replace' | 'repair'>,
    where: { configPath?: string; entry?: SpillwayEntry; servers?: readonly string[]; group?: string } & Pick<EditOptions, 'modeFor'> = {},
  ): Promise<ChangeOutcome> {
    const def = definition(id);
    const configPath = where.configPath ?? (await detectClient(def, os, listDir)).configPath;
    // The edit's own result, for the backup record (the text is not parsed again for it).
    let last: TextChange | undefined;
    const outcome = await editConfigFile(
      configPath,
      (text) => {
        last = edit(text, configPath);
        return last.removesFile ? null : last.text;
      },
      {
        backups: backupsOf(id),
        reason,
        holdsSecret: where.entry?.kind === 'http',
        servers: where.servers,
        entryOf: () => (last?.entry === undefined ? undefined : entryDigestOf(last.entry)),
        group: where.group,
        modeFor: where.modeFor,
      },
    );
    return {
      client: id,
      file: outcome.file,
      changed: outcome.changed,
      backup: outcome.backup,
      rewritten: outcome.changed && (last?.rewritten ?? false),
      files: outcome.changed ? [outcome.file] : [],
      restartRequired: def.restartRequired,
      restartHint: def.restartHint,
    };
  }

  /** The client's files that hold Spillway's entry, with the Connect each came from. */
  function holders(id: ClientId, detection: ClientDetection) {
    const paths = detection.files.filter((f) => f.exists).map((f) => f.path);
    return entryHolders(definition(id), paths, backupsOf(id));
  }

  async function readServers(id: ClientId): Promise<ServerSpec[]> {
    const def = definition(id);
    return readClientServers(def, await detectClient(def, os, listDir));
  }

  return {
    ids: CLIENT_IDS,
    definition,
    async list(desired) {
      return Promise.all(CLIENT_IDS.map((id) => status(id, desired?.(id))));
    },
    get: (id, desired) => status(id, desired),
    readServers,
    async state(id, desired) {
      const servers = await readServers(id);
      return entryState(
        servers.find((s) => s.name === SPILLWAY_ENTRY_NAME),
        desired,
      );
    },
    async consent(id, entry, replace = []) {
      const def = definition(id);
      assertKind(def, entry);
      const { file, text, existed } = await readTarget(def);
      const parsed = parseServers(def, text, file);
      const present = specsOf(def, parsed, file);
      const before = present.find((s) => s.name === SPILLWAY_ENTRY_NAME);
      const removes = replace.filter((n) => n !== SPILLWAY_ENTRY_NAME && present.some((s) => s.name === n));
      const change = connectChange(def, parsed, file, entry, removes);
      // The entry as the file has it, or as the new text will (read again: only its servers object is parsed).
      const entryText = (change.text === text ? entryTextOf(def, parsed) : entryTextOf(def, parseServers(def, change.text, file))) ?? '';
      const notes: string[] = [];
      if (!existed) notes.push(`${file} does not exist yet; it will be created.`);
      if (change.rewritten) notes.push(REWRITE_NOTE);
      notes.push(def.restartHint);
      return {
        client: id,
        clientName: def.displayName,
        file,
        action: !before ? 'add' : change.text === text ? 'none' : 'update',
        entryText,
        redactedEntryText: redactEntryText(entryText, entry),
        removes,
        notes,
        restartRequired: def.restartRequired,
      };
    },
    async connect(id, entry, reason = 'connect') {
      const def = definition(id);
      assertKind(def, entry);
      return write(id, (text, file) => applyConnect(def, text, file, entry), reason, { entry });
    },
    async disconnect(id) {
      const def = definition(id);
      const remove = (text: string, file: string) => applyDisconnect(def, text, file);
      // Our entry is read from any of the client's files (Cline has two), so it goes from each one that
      // holds it, not only from the file Spillway would write now. All are checked before any is written.
      // What Connect changed besides the entry (a servers object it created, the mode, the file), given back too.
      const detection = await detectClient(def, os, listDir);
      const holding = await holders(id, detection);
      if (holding.length === 0) return write(id, remove, 'disconnect', { configPath: detection.configPath });
      // One action: Restore takes back the writes to every file together.
      const group = holding.length > 1 ? randomBytes(8).toString('hex') : undefined;
      const outcomes: ChangeOutcome[] = [];
      for (const { file, origin } of holding) {
        const { edit, modeFor } = disconnectGivingBack(def, origin);
        outcomes.push(await write(id, edit, 'disconnect', { configPath: file, group, modeFor }));
      }
      const first = outcomes.find((o) => o.changed) ?? outcomes[0];
      return { ...first, rewritten: outcomes.some((o) => o.rewritten), files: outcomes.flatMap((o) => o.files) };
    },
    async disconnectDeletes(id) {
      return filesDisconnectDeletes(definition(id), await holders(id, await detectClient(definition(id), os, listDir)));
    },
    async importCandidates(id) {
      const seen = new Set<string>();
      const out: ImportCandidate[] = [];
      for (const spec of await readServers(id)) {
        if (spec.name === SPILLWAY_ENTRY_NAME) continue;
        const c = toImportCandidate(spec);
        if (!c || seen.has(importKey(c))) continue;
        seen.add(importKey(c));
        out.push(c);
      }
      return out;
    },
    async replaceWithSpillway(id, names, entry) {
      const def = definition(id);
      assertKind(def, entry);
      return write(
        id,
        (text, file) => {
          const parsed = parseServers(def, text, file);
          const present = new Set(specsOf(def, parsed, file).map((s) => s.name));
          const missing = names.filter((n) => !present.has(n));
          if (missing.length > 0) throw new Error(`${file} has no server named ${missing.map((n) => `"${n}"`).join(', ')}; nothing was changed.`);
          return connectChange(def, parsed, file, entry, names);
        },
        'replace',
        { entry, servers: names },
      );
    },
    async restore(id, ours) {
      const def = definition(id);
      const backups = backupsOf(id);
      return restoreLatestBackup(backups, def.displayName, (now, before, record, left) =>
        undoChange(def, backups.dir, now, before, record, { left, ours }),
      );
    },
    async backups(id) {
      return listBackups(backupsOf(id).dir);
    },
    async removeInterruptedWrites() {
      for (const id of CLIENT_IDS) {
        const detection = await detectClient(definition(id), os, listDir);
        const files = new Set([detection.configPath, ...detection.files.map((f) => f.path)]);
        for (const file of files) await removeInterruptedWrites(file);
      }
    },
  };
}

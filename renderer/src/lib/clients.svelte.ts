/**
 * MCP clients (`clients.*`): each detected client's state, connecting and disconnecting after the user
 * saw the exact entry, importing its servers and restoring a backup; and the live sessions.
 */
import type { ApiFailure, ApiResult, Backend, Res } from './api.js';
import type { SessionInfo } from '../../../shared/api.js';
import { deletedNote, type ClientIdName, type ClientInfo } from '../../../shared/api-clients.js';
import { RemoteValue } from './remote-value.svelte.js';
import { coalesced } from './refresh-loop.js';

export type ClientPreview = Res<'clients.preview'>;
export type DisconnectPreview = Res<'clients.previewDisconnect'>;
export type ImportCandidate = Res<'clients.importCandidates'>[number];
export type OtherAccess = Res<'clients.otherAccess'>;
export type ClientAction = 'preview' | 'connect' | 'disconnect' | 'candidates' | 'import' | 'restore';

/** What a user sees as the client's state. */
export type ClientState = 'not_installed' | 'not_connected' | 'connected' | 'stale' | 'taken' | 'error';

export function clientState(c: ClientInfo): ClientState {
  if (c.state === 'error') return 'error';
  if (c.state === 'taken') return 'taken';
  if (c.state === 'current') return 'connected';
  if (c.state === 'stale') return 'stale';
  return c.installed ? 'not_connected' : 'not_installed';
}

/** The label of each state, as the client list shows it. */
export const STATE_LABEL: Record<ClientState, string> = {
  not_installed: 'Not installed',
  not_connected: 'Not connected',
  connected: 'Connected',
  stale: 'Needs updating',
  taken: 'Has its own “spillway”',
  error: 'Cannot read its settings',
};

/** What to do about a client whose "spillway" server is the user's own (state `taken`). */
export const takenNote = (app: string) =>
  `${app} has its own server named “spillway”, which Spillway leaves alone. To connect Spillway, rename or remove it in ${app}'s settings, then press Check again.`;

/** Names in a sentence: "a", "a and b", "a, b and c". */
const listed = (names: string[]) => (names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`);

/** Every file a change wrote: `files` when it wrote several (Cline keeps its servers in two), else `file`. */
export function changedFiles(done: { file: string; files?: string[] }): string[] {
  return done.files && done.files.length > 1 ? done.files : [done.file];
}

/** What a restore did, and how the app picks up its file again. `deleted` is about `file`. */
export function restoreNote(done: Res<'clients.restore'>): string {
  const files = changedFiles(done);
  const others = files.filter((f) => f !== done.file);
  const what = done.deleted
    ? `Removed ${done.file} (Spillway had created it)${others.length ? `; restored ${listed(others)} from ${others.length > 1 ? 'their backups' : 'its backup'}` : ''}.`
    : done.changedSinceWrite
      ? `Undid Spillway's last change in ${listed(files)}. ${files.length > 1 ? 'Some had' : 'The file had'} changed since (the app or you edited it): those changes were kept.`
      : `Restored ${listed(files)} from ${files.length > 1 ? 'their backups' : 'its backup'}.`;
  return `${what} ${done.restartHint}`;
}

export class ClientsState {
  readonly #list: RemoteValue<'clients.list'>;
  #sessions = $state<SessionInfo[]>([]);
  #sessionsError = $state<ApiFailure | undefined>();
  #errors = $state<Record<string, ApiFailure | undefined>>({});
  #busy = $state<Record<string, ClientAction | undefined>>({});
  /** The last change per client, for a "restart the client" note. */
  #notes = $state<Record<string, string | undefined>>({});
  readonly #backend: Backend;

  readonly refreshSessions = coalesced(async () => {
    const result = await this.#backend.call('sessions.list', {});
    if (result.ok) {
      this.#sessions = result.value;
      this.#sessionsError = undefined;
    } else {
      this.#sessionsError = result;
    }
  });

  constructor(backend: Backend) {
    this.#backend = backend;
    this.#list = new RemoteValue(backend, 'clients.list', {});
  }

  loadClients(): Promise<void> {
    return this.#list.load();
  }

  get clients(): ClientInfo[] {
    return this.#list.value ?? [];
  }
  /** False once the hub said it cannot configure clients yet. */
  get available(): boolean {
    return this.#list.available;
  }
  get loaded(): boolean {
    return this.#list.loaded;
  }
  get clientsError(): ApiFailure | undefined {
    return this.#list.error;
  }
  get sessions(): SessionInfo[] {
    return this.#sessions;
  }
  get sessionsError(): ApiFailure | undefined {
    return this.#sessionsError;
  }
  errorFor(id: string): ApiFailure | undefined {
    return this.#errors[id];
  }
  busyWith(id: string): ClientAction | undefined {
    return this.#busy[id];
  }
  noteFor(id: string): string | undefined {
    return this.#notes[id];
  }

  start(): () => void {
    const stop = this.#backend.subscribe((e) => {
      if (e.type === 'session.opened' || e.type === 'session.closed') {
        void this.refreshSessions();
        // lastSeen comes from sessions.
        if (this.#list.available) void this.loadClients();
      }
    });
    void this.refreshSessions();
    void this.loadClients();
    return stop;
  }

  async #act<T>(id: ClientIdName, action: ClientAction, run: () => Promise<ApiResult<T>>): Promise<T | undefined> {
    this.#busy = { ...this.#busy, [id]: action };
    const result = await run();
    this.#busy = { ...this.#busy, [id]: undefined };
    this.#errors = { ...this.#errors, [id]: result.ok ? undefined : result };
    return result.ok ? result.value : undefined;
  }

  /** The address and key any other client uses (a secret: shown only when the user asks); `renew` revokes the old key and makes a new one. */
  otherAccess(renew = false): Promise<ApiResult<OtherAccess>> {
    return this.#backend.call('clients.otherAccess', renew ? { renew } : {});
  }

  /** The exact entry Connect would write; writes nothing. */
  preview(id: ClientIdName): Promise<ClientPreview | undefined> {
    return this.#act(id, 'preview', () => this.#backend.call('clients.preview', { id }));
  }

  /** The entry Disconnect would remove, as the client's file has it now; writes nothing. */
  previewDisconnect(id: ClientIdName): Promise<DisconnectPreview | undefined> {
    return this.#act(id, 'preview', () => this.#backend.call('clients.previewDisconnect', { id }));
  }

  async connect(id: ClientIdName): Promise<boolean> {
    const change = await this.#act(id, 'connect', () => this.#backend.call('clients.connect', { id }));
    return this.#after(id, change, 'Connected');
  }

  async disconnect(id: ClientIdName): Promise<boolean> {
    const change = await this.#act(id, 'disconnect', () => this.#backend.call('clients.disconnect', { id }));
    return this.#after(id, change, 'Disconnected');
  }

  importCandidates(id: ClientIdName): Promise<ImportCandidate[] | undefined> {
    return this.#act(id, 'candidates', () => this.#backend.call('clients.importCandidates', { id }));
  }

  async import(id: ClientIdName, names: string[], replace: boolean): Promise<Res<'clients.import'> | undefined> {
    const done = await this.#act(id, 'import', () => this.#backend.call('clients.import', { id, names, replace }));
    if (done) {
      const parts = [`Imported ${done.imported.length} server${done.imported.length === 1 ? '' : 's'}`];
      if (done.skipped.length) parts.push(`skipped ${done.skipped.join(', ')}`);
      if (done.change?.restartHint) parts.push(done.change.restartHint);
      this.#notes = { ...this.#notes, [id]: `${parts.join('; ')}.` };
      await this.loadClients();
    }
    return done;
  }

  async restore(id: ClientIdName): Promise<boolean> {
    const done = await this.#act(id, 'restore', () => this.#backend.call('clients.restore', { id }));
    if (done) {
      this.#notes = { ...this.#notes, [id]: restoreNote(done) };
      await this.loadClients();
    }
    return done !== undefined;
  }

  async #after(id: ClientIdName, change: Res<'clients.connect'> | undefined, verb: string): Promise<boolean> {
    if (!change) return false;
    // The app's hint whenever the hub gives one (also "press Refresh" for an app that needs no restart).
    const hint = change.restartHint ?? (change.restartRequired ? 'Restart the client to use it.' : undefined);
    const restart = hint ? ` ${hint}` : '';
    const files = changedFiles(change);
    // A file Disconnect deleted (Spillway had created it) is said so, not as "updated".
    const deleted = change.changed ? deletedNote(this.clients.find((c) => c.id === id)?.displayName ?? id, change) : undefined;
    this.#notes = {
      ...this.#notes,
      [id]: deleted
        ? `${deleted}${restart}`
        : change.changed
          ? `${verb}: ${listed(files)} ${files.length > 1 ? 'were' : 'was'} updated.${restart}`
          : `${change.file} already had it.`,
    };
    await this.loadClients();
    return true;
  }
}

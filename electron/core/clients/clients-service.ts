/**
 * One-click client configuration on top of the clients library: the desired Spillway entry for each
 * client (the stdio bridge for Claude Desktop and Codex, the HTTP URL with a token of its own for the
 * rest), list with states and "last seen", connect/disconnect with consent previews, import, restore and
 * drift repair. The same service runs inside the hub and, for the CLI when no hub runs, over the files.
 */
import type { ServerConfig, ServerConfigInput } from '../../../shared/config.js';
import { createHash, randomBytes } from 'node:crypto';
import type { ClientIdName, ClientInfo } from '../../../shared/api-clients.js';
import type { BackupRecord } from './backup-store.js';
import type { ClientTokens } from './client-tokens.js';
import { ClientQueue } from './client-queue.js';
import { clientOnlyReason } from './client-variables.js';
import { ForeignEntryError } from './config-errors.js';
import { sayingDiskRefusal, tokenNotRevoked } from './disk-refusal.js';
import { importableServers, refuseItself, UnknownImportError } from './import-candidates.js';
import { bearerOf, madeBySpillway, missingDataDir, UnstableEndpointError, writtenFrom, type HubEndpoint } from './entry-owner.js';
import { maskedCandidate } from './masked-entries.js';
import { previewDisconnect } from './disconnect-preview.js';
import { undoable } from './restore-backup.js';
import type { ClientRegistry } from './registry.js';
import { candidateIdentity, configIdentity } from './same-server.js';
import { SPILLWAY_ENTRY_NAME, type ImportCandidate, type ServerSpec, type SpillwayEntry } from './types.js';

/** The token id of "any other client" (one the user sets up by hand): no app Spillway configures has it. */
const OTHER_CLIENT = 'other';

export { UnknownImportError };

export interface BridgeLaunch {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** What the service needs from wherever it runs (the hub, or the config file when no hub runs). */
export interface ClientsHost {
  /** Where HTTP clients reach the hub, and why that would not survive a restart (then no HTTP entry is written). */
  endpoint(): HubEndpoint;
  upstreamConfigs(): Record<string, ServerConfig>;
  addUpstream(req: { name: string; config: ServerConfigInput }): Promise<{ id: string }>;
  /** When a client was last seen talking to the hub. */
  lastSeen(clientId: string): string | undefined;
  /**
   * The upstream's config with its secret-store references replaced by their values, so servers are told
   * apart by their env and headers. Absent (the CLI with no hub running): references are compared as
   * they are, and match no client's value.
   */
  resolveSecrets?(id: string, cfg: ServerConfig): Promise<ServerConfig>;
}

export interface ClientsServiceOptions {
  registry: ClientRegistry;
  tokens: ClientTokens;
  host: ClientsHost;
  /** How a stdio client starts the bridge (the app's own executable when packaged). */
  bridge: BridgeLaunch;
  /** The data folder this service writes from: drift repair touches only entries written from it. */
  dataDir: string;
  /** The OS this runs on, whose file system decides whether two spellings of `dataDir` are one folder (default: this process's). */
  platform?: NodeJS.Platform;
}

function candidateConfig(c: ImportCandidate): ServerConfigInput {
  return c.kind === 'stdio' ? { type: 'stdio', command: c.command, args: c.args, env: c.env } : { type: c.kind, url: c.url, headers: c.headers };
}

export class ClientsService {
  /** Salts the opaque `sameAs` keys the import list carries: they are built from secret values. */
  readonly #salt = randomBytes(16);
  /** Connect, disconnect, import, restore and repair of one client's file run one at a time. */
  readonly #queue = new ClientQueue();

  constructor(private readonly o: ClientsServiceOptions) {}

  /** The client's servers Spillway can run, and the names of those that are this hub itself. */
  #candidates(id: ClientIdName) {
    const hub = { url: this.o.host.endpoint().url, dataDir: this.o.dataDir, platform: this.#platform, bridgeCommand: this.o.bridge.command };
    return importableServers(this.o.registry, id, hub);
  }

  get #platform(): NodeJS.Platform {
    return this.o.platform ?? process.platform;
  }

  /** What every upstream is, as compared with a client's servers (secrets resolved where the host can). */
  async #running(): Promise<Set<string>> {
    const have = new Set<string>();
    for (const [id, cfg] of Object.entries(this.o.host.upstreamConfigs())) {
      let resolved = cfg;
      try {
        if (this.o.host.resolveSecrets) resolved = await this.o.host.resolveSecrets(id, cfg);
      } catch {
        // A value missing from the store: compared as its reference, it matches no client's server.
      }
      have.add(configIdentity(resolved));
    }
    return have;
  }

  /** An opaque key equal for the same server in any client's file; no secret can be read back from it. */
  #sameAs(c: ImportCandidate): string {
    return createHash('sha256').update(this.#salt).update(candidateIdentity(c)).digest('base64url').slice(0, 22);
  }

  /**
   * The entry Spillway wants in this client's file. To be written (`create`): the client's token is made,
   * and an HTTP entry is refused with the reason when the hub's port would not last.
   */
  async desired(id: ClientIdName, create = true): Promise<SpillwayEntry> {
    const def = this.o.registry.definition(id);
    const kind = def.kinds.includes('http') && id !== 'codex' ? 'http' : 'stdio';
    if (kind === 'stdio') {
      return {
        kind: 'stdio',
        command: this.o.bridge.command,
        args: [...this.o.bridge.args, '--client', id],
        ...(this.o.bridge.env ? { env: this.o.bridge.env } : {}),
      };
    }
    const endpoint = this.o.host.endpoint();
    if (create && endpoint.unstable) throw new UnstableEndpointError(endpoint.unstable);
    const token = create ? await sayingDiskRefusal(this.o.tokens.file, () => this.o.tokens.ensure(id)) : (this.o.tokens.get(id) ?? '');
    return { kind: 'http', url: endpoint.url, headers: { Authorization: `Bearer ${token}` } };
  }

  /**
   * The address and key any other MCP client uses (the Clients view and the status line hand them out on
   * request). `renew`: the old key is revoked first, so it is refused from now on, and a new one made.
   */
  async otherAccess(renew = false): Promise<{ url: string; urlWithKey: string; header: string; unstable?: string }> {
    const { url, unstable } = this.o.host.endpoint();
    if (renew) await sayingDiskRefusal(this.o.tokens.file, () => this.o.tokens.revoke(OTHER_CLIENT));
    const token = await sayingDiskRefusal(this.o.tokens.file, () => this.o.tokens.ensure(OTHER_CLIENT));
    return {
      url,
      urlWithKey: `${url}?token=${encodeURIComponent(token)}`,
      header: `Authorization: Bearer ${token}`,
      ...(unstable ? { unstable } : {}),
    };
  }

  /** Every client's desired entry, as compared (nothing created). */
  async #desiredAll(): Promise<Map<string, SpillwayEntry>> {
    const desired = new Map<string, SpillwayEntry>();
    for (const id of this.o.registry.ids) desired.set(id, await this.desired(id as ClientIdName, false));
    return desired;
  }

  async list(): Promise<ClientInfo[]> {
    const desired = await this.#desiredAll();
    const statuses = await this.o.registry.list((id) => desired.get(id));
    const infos: ClientInfo[] = [];
    for (const s of statuses) {
      const taken = s.entry !== null && !madeBySpillway(s.entry);
      const state = s.error ? 'error' : taken ? 'taken' : (s.state?.state ?? 'absent');
      const seen = this.o.host.lastSeen(s.id);
      // Restore undoes the latest change made through Spillway: offered only when there is one.
      const restorable = (await this.o.registry.backups(s.id)).some(undoable);
      infos.push({
        id: s.id,
        displayName: s.displayName,
        installed: s.installed,
        configPresent: s.configPresent,
        configPath: s.configPath,
        restorable,
        state,
        ...(state === 'stale' && s.state?.state === 'stale' ? { differs: [...s.state.differs] } : {}),
        ...(s.error ? { error: s.error } : {}),
        restartRequired: s.restartRequired,
        restartHint: s.restartHint,
        kind: desired.get(s.id)!.kind,
        ...(seen ? { lastSeen: seen } : {}),
        servers: s.otherServers,
      });
    }
    return infos;
  }

  async preview(id: ClientIdName, replace?: string[]) {
    // The client's token is made now (it is not written anywhere until the user consents), so the
    // preview shows the entry exactly as it will be written, with the token masked.
    const p = await this.o.registry.consent(id, await this.desired(id), replace);
    return { file: p.file, action: p.action, entryText: p.redactedEntryText, removes: p.removes, notes: p.notes, restartRequired: p.restartRequired };
  }

  /** Refuses when the client's "spillway" server is one the user made (connect would have to replace it). */
  async #assertNotTaken(id: ClientIdName): Promise<void> {
    const spec = (await this.o.registry.readServers(id)).find((s) => s.name === SPILLWAY_ENTRY_NAME);
    if (spec && !madeBySpillway(spec)) throw new ForeignEntryError(this.o.registry.definition(id).displayName, spec.file, 'connect');
  }

  /** What Disconnect removes and deletes, for the user's consent (disconnect-preview.ts). Writes nothing. */
  previewDisconnect(id: ClientIdName) {
    return previewDisconnect(this.o.registry, id);
  }

  async connect(id: ClientIdName) {
    return this.#queue.run(id, async () => this.#change(await this.o.registry.connect(id, await this.desired(id))));
  }

  /** Removes Spillway's entry; the client's token is revoked when an entry was removed (a leaked one stops working). */
  async disconnect(id: ClientIdName) {
    return this.#queue.run(id, async () => {
      const outcome = await this.o.registry.disconnect(id);
      // A disk refusing the revoke is said in words: the entry is out, its token still works.
      const app = this.o.registry.definition(id).displayName;
      if (outcome.changed)
        await this.o.tokens.revoke(id).catch((err: unknown) => Promise.reject(tokenNotRevoked(err, this.o.tokens.file, outcome.file, app) ?? err));
      return this.#change(outcome, await this.#deleted(id, outcome.backup));
    });
  }

  /**
   * The files a Disconnect deleted (Spillway had created them, connect-origin.ts): its writes whose backup
   * says no file is left after them. `backup`: its first write's; the others share its group (Cline's two).
   */
  async #deleted(id: ClientIdName, backup: BackupRecord | undefined): Promise<string[]> {
    if (!backup) return [];
    const group = backup.group;
    const writes = group ? (await this.o.registry.backups(id)).filter((r) => r.group === group && r.name !== backup.name) : [];
    return [backup, ...writes]
      .sort((a, b) => a.seq - b.seq)
      .filter((r) => r.sha256After === null)
      .map((r) => r.file);
  }

  /**
   * A change's answer; its hint whenever the file changed, also for an app that needs no restart (Windsurf:
   * press Refresh). `files`: every file changed, when there were several (Cline); `deleted`: those Disconnect deleted.
   */
  #change(
    o: { file: string; changed: boolean; backup?: { name: string }; files?: string[]; restartRequired: boolean; restartHint: string },
    deleted: string[] = [],
  ) {
    return {
      file: o.file,
      changed: o.changed,
      ...(o.files && o.files.length > 1 ? { files: [...o.files] } : {}),
      ...(o.backup ? { backup: o.backup.name } : {}),
      ...(deleted.length > 0 ? { deleted } : {}),
      restartRequired: o.restartRequired,
      ...(o.changed ? { restartHint: o.restartHint } : {}),
    };
  }

  /** The client's servers for the import dialog, credentials masked (import itself reads the real ones from the file). */
  async importCandidates(id: ClientIdName) {
    const have = await this.#running();
    const app = this.o.registry.definition(id).displayName;
    return (await this.#candidates(id)).candidates.map((c) => {
      const clientOnly = clientOnlyReason(c, app);
      return {
        name: c.name,
        kind: c.kind,
        ...maskedCandidate(c),
        alreadyImported: have.has(candidateIdentity(c)),
        sameAs: this.#sameAs(c),
        ...(clientOnly ? { clientOnly } : {}),
      };
    });
  }

  /** Adds the chosen servers as upstreams (deduplicated, env kept); with `replace`, the client's file then runs them through Spillway. */
  async import(id: ClientIdName, names: string[], replace: boolean) {
    return this.#queue.run(id, () => this.#import(id, names, replace));
  }

  async #import(id: ClientIdName, names: string[], replace: boolean) {
    const { candidates, itself } = await this.#candidates(id);
    const app = this.o.registry.definition(id).displayName;
    refuseItself(names, itself, app);
    const unknown = names.filter((n) => !candidates.some((c) => c.name === n));
    if (unknown.length > 0) throw new UnknownImportError(`Not a server of ${id}: ${unknown.join(', ')}`);
    // A server that uses the app's own variables would run with them as literal text: it stays in the app,
    // and its entry is never taken out of the app's file.
    const appOnly = candidates.flatMap((c) => {
      const reason = names.includes(c.name) ? clientOnlyReason(c, app) : undefined;
      return reason ? [`${c.name} ${reason}`] : [];
    });
    if (appOnly.length > 0) throw new UnknownImportError(`Spillway cannot run this from ${app}: ${appOnly.join('; ')}. Nothing was changed.`);
    // Asked first: an entry that cannot be written (a port that would not last, a "spillway" server that is
    // the user's own) refuses before anything is added.
    const entry = replace ? await this.desired(id) : undefined;
    if (entry) await this.#assertNotTaken(id);
    const have = await this.#running();
    const imported: string[] = [];
    const skipped: string[] = [];
    for (const c of candidates.filter((x) => names.includes(x.name))) {
      if (have.has(candidateIdentity(c))) {
        skipped.push(c.name);
        continue;
      }
      const { id: serverId } = await this.o.host.addUpstream({ name: c.name, config: candidateConfig(c) });
      have.add(candidateIdentity(c));
      imported.push(serverId);
    }
    const change = entry ? this.#change(await this.o.registry.replaceWithSpillway(id, names, entry)) : undefined;
    return { imported, skipped, ...(change ? { change } : {}) };
  }

  /**
   * Undoes the user's last change to the client's file (Spillway's own repairs since then are undone with
   * it); when the file changed since, only Spillway's own change, and never over another Spillway's entry.
   * An entry it brings back works, and never with a token Disconnect revoked: see #reissue.
   */
  async restore(id: ClientIdName) {
    const r = await this.#queue.run(id, async () => {
      const restored = await this.o.registry.restore(id, (spec) => writtenFrom(spec, this.#here(id, true)));
      await this.#reissue(id);
      return restored;
    });
    const def = this.o.registry.definition(id);
    return {
      file: r.file,
      // Every file given back, when the change wrote several (Cline's Disconnect).
      ...(r.files.length > 1 ? { files: [...r.files] } : {}),
      deleted: r.deleted,
      changedSinceWrite: r.changedSinceWrite,
      restartRequired: def.restartRequired,
      restartHint: def.restartHint,
    };
  }

  /**
   * What tells an entry written from this data folder. `revoked`: an HTTP entry holding a token this folder
   * gave the client and revoked since (Disconnect) counts too.
   */
  #here(id: string, revoked: boolean) {
    return {
      dataDir: this.o.dataDir,
      platform: this.#platform,
      clientToken: this.o.tokens.get(id),
      ...(revoked ? { revokedHere: (t: string) => this.o.tokens.revokedHere(id, t) } : {}),
    };
  }

  /**
   * After a restore: an HTTP entry holding a token this folder revoked (the restore undid a Disconnect) is
   * rewritten with the client's current token, or a fresh one, with a backup labelled 'repair' that Restore
   * goes past. A revoked token is never taken back: Disconnect is how a leaked one is revoked. While the
   * hub's port would not last, the entry is left as it is (the hub refuses it; the list shows it as stale,
   * and Connect writes it anew once the port lasts).
   */
  async #reissue(id: ClientIdName): Promise<void> {
    let spec: ServerSpec | undefined;
    try {
      spec = (await this.o.registry.readServers(id)).find((s) => s.name === SPILLWAY_ENTRY_NAME);
    } catch {
      return; // A file that cannot be read now holds no entry to fix; the list shows why.
    }
    const token = spec?.transport === 'http' ? bearerOf(spec) : undefined;
    if (!token || !this.o.tokens.revokedHere(id, token)) return;
    try {
      await this.o.registry.connect(id, await this.desired(id), 'repair');
    } catch (err) {
      if (!(err instanceof UnstableEndpointError)) throw err;
    }
  }

  /**
   * Drift: repairs every stale Spillway entry (port, token or executable path changed), with a backup —
   * only entries written from this data folder, and HTTP ones only while the hub's port is a lasting one.
   * Another Spillway's entry is left byte for byte (issue 13, item 6). So is one holding a token this folder
   * revoked: its app was disconnected (and wrote the entry back from memory, as Claude Code does), and stays
   * so until the user connects it again or restores.
   */
  async repair() {
    // Runs at each start: what a write cut short left beside an app's file (a copy holding a token) goes.
    await this.o.registry.removeInterruptedWrites().catch(() => undefined);
    const out: { id: ClientIdName; repaired: boolean; restartHint?: string; error?: string }[] = [];
    const lasting = !this.o.host.endpoint().unstable;
    const desired = await this.#desiredAll();
    for (const info of await this.o.registry.list((id) => desired.get(id))) {
      if (info.state?.state !== 'stale' || !info.entry) continue;
      if (!writtenFrom(info.entry, this.#here(info.id, false))) {
        const gone = await missingDataDir(info.entry, info.displayName, this.o.dataDir);
        if (gone) out.push({ id: info.id, repaired: false, error: gone });
        continue;
      }
      if (desired.get(info.id)?.kind === 'http' && !lasting) continue;
      try {
        const r = await this.#queue.run(info.id, async () => {
          // Read again in line: an entry a Disconnect just took out stays out.
          const now = await this.o.registry.get(info.id, desired.get(info.id));
          if (now.state?.state !== 'stale' || !now.entry || !writtenFrom(now.entry, this.#here(info.id, false))) return undefined;
          // Its backup is labelled 'repair': Restore skips it and undoes the user's last change instead.
          return this.#change(await this.o.registry.connect(info.id, await this.desired(info.id), 'repair'));
        });
        if (!r) continue;
        out.push({ id: info.id, repaired: r.changed, ...(r.restartHint ? { restartHint: r.restartHint } : {}) });
      } catch (err) {
        out.push({ id: info.id, repaired: false, error: (err as Error).message });
      }
    }
    return out;
  }
}

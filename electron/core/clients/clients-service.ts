/**
 * One-click client configuration on top of the clients library: the desired Spillway entry for each
 * client (the stdio bridge for Claude Desktop and Codex, the HTTP URL with a token of its own for the
 * rest), list with states and "last seen", connect/disconnect with consent previews, import, restore and
 * drift repair. The same service runs inside the hub and, for the CLI when no hub runs, over the files.
 */
import type { ServerConfig, ServerConfigInput } from '../../../shared/config.js';
import type { ClientIdName, ClientInfo } from '../../../shared/api-clients.js';
import { splitUrlSecrets } from '../secrets/url-secrets.js';
import type { ClientTokens } from './client-tokens.js';
import { entryTextIn } from './client-config.js';
import { ForeignEntryError } from './config-errors.js';
import { madeBySpillway, UnstableEndpointError, writtenFrom, type HubEndpoint } from './entry-owner.js';
import { maskedCandidate, maskedEntryText } from './masked-entries.js';
import { importKey, type ClientRegistry } from './registry.js';
import { decodeConfigText, readSnapshot } from './safe-write.js';
import { SPILLWAY_ENTRY_NAME, type ImportCandidate, type SpillwayEntry } from './types.js';

/** An import named servers the client's file does not have (the control API answers `invalid`, field `names`). */
export class UnknownImportError extends Error {
  override readonly name = 'UnknownImportError';
}

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
}

export interface ClientsServiceOptions {
  registry: ClientRegistry;
  tokens: ClientTokens;
  host: ClientsHost;
  /** How a stdio client starts the bridge (the app's own executable when packaged). */
  bridge: BridgeLaunch;
  /** The data folder this service writes from: drift repair touches only entries written from it. */
  dataDir: string;
}

/**
 * Whether an upstream and a client's server are the same: command + args, or the address. An imported
 * address keeps its credentials in the secret store (`api_key=<ref>` in config.json), so addresses are
 * compared with their credential parameters as references.
 */
function configKey(cfg: ServerConfig): string {
  return cfg.type === 'stdio' ? ['stdio', cfg.command, ...cfg.args].join('\u0000') : `url\u0000${splitUrlSecrets(cfg.url).url}`;
}

function candidateKey(c: ImportCandidate): string {
  return c.kind === 'stdio' ? importKey(c) : `url\u0000${splitUrlSecrets(c.url).url}`;
}

function candidateConfig(c: ImportCandidate): ServerConfigInput {
  return c.kind === 'stdio' ? { type: 'stdio', command: c.command, args: c.args, env: c.env } : { type: c.kind, url: c.url, headers: c.headers };
}

export class ClientsService {
  constructor(private readonly o: ClientsServiceOptions) {}

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
    const token = create ? await this.o.tokens.ensure(id) : (this.o.tokens.get(id) ?? '');
    return { kind: 'http', url: endpoint.url, headers: { Authorization: `Bearer ${token}` } };
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
      infos.push({
        id: s.id,
        displayName: s.displayName,
        installed: s.installed,
        configPresent: s.configPresent,
        configPath: s.configPath,
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

  /**
   * What Disconnect removes: Spillway's entry as it stands in the file now, secrets masked. Not the desired
   * entry (a stale one would show the new port, and a hub on port 0 would refuse it), and no token is made.
   */
  /** Refuses when the client's "spillway" server is one the user made (connect would have to replace it). */
  async #assertNotTaken(id: ClientIdName): Promise<void> {
    const spec = (await this.o.registry.readServers(id)).find((s) => s.name === SPILLWAY_ENTRY_NAME);
    if (spec && !madeBySpillway(spec)) throw new ForeignEntryError(this.o.registry.definition(id).displayName, spec.file, 'connect');
  }

  async previewDisconnect(id: ClientIdName) {
    const def = this.o.registry.definition(id);
    // Read errors (a malformed file) reach the caller as they do for disconnect itself.
    const spec = (await this.o.registry.readServers(id)).find((s) => s.name === SPILLWAY_ENTRY_NAME);
    if (!spec) return { file: (await this.o.registry.get(id)).configPath, restartRequired: def.restartRequired };
    // A "spillway" server the user made is not Spillway's to remove: say so now, as Disconnect would.
    if (!madeBySpillway(spec)) throw new ForeignEntryError(def.displayName, spec.file, 'disconnect');
    const { text } = decodeConfigText((await readSnapshot(spec.file)).bytes, spec.file);
    const fields = { command: spec.command, args: spec.args, env: spec.env, url: spec.url, headers: spec.headers };
    const entryText = entryTextIn(def, text, spec.file) ?? `"${SPILLWAY_ENTRY_NAME}": ${JSON.stringify(fields, null, 2)}`;
    return { file: spec.file, entryText: maskedEntryText(entryText, spec), restartRequired: def.restartRequired };
  }

  async connect(id: ClientIdName) {
    return this.#change(await this.o.registry.connect(id, await this.desired(id)));
  }

  async disconnect(id: ClientIdName) {
    const outcome = await this.o.registry.disconnect(id);
    await this.o.tokens.revoke(id);
    return this.#change(outcome);
  }

  #change(o: { file: string; changed: boolean; backup?: { name: string }; restartRequired: boolean; restartHint: string }) {
    return {
      file: o.file,
      changed: o.changed,
      ...(o.backup ? { backup: o.backup.name } : {}),
      restartRequired: o.restartRequired,
      ...(o.changed && o.restartRequired ? { restartHint: o.restartHint } : {}),
    };
  }

  /** The client's servers for the import dialog, credentials masked (import itself reads the real ones from the file). */
  async importCandidates(id: ClientIdName) {
    const have = new Set(Object.values(this.o.host.upstreamConfigs()).map(configKey));
    return (await this.o.registry.importCandidates(id)).map((c) => ({
      name: c.name,
      kind: c.kind,
      ...maskedCandidate(c),
      alreadyImported: have.has(candidateKey(c)),
    }));
  }

  /** Adds the chosen servers as upstreams (deduplicated, env kept); with `replace`, the client's file then runs them through Spillway. */
  async import(id: ClientIdName, names: string[], replace: boolean) {
    const candidates = await this.o.registry.importCandidates(id);
    const unknown = names.filter((n) => !candidates.some((c) => c.name === n));
    if (unknown.length > 0) throw new UnknownImportError(`Not a server of ${id}: ${unknown.join(', ')}`);
    // Asked first: an entry that cannot be written (a port that would not last, a "spillway" server that is
    // the user's own) refuses before anything is added.
    const entry = replace ? await this.desired(id) : undefined;
    if (entry) await this.#assertNotTaken(id);
    const have = new Set(Object.values(this.o.host.upstreamConfigs()).map(configKey));
    const imported: string[] = [];
    const skipped: string[] = [];
    for (const c of candidates.filter((x) => names.includes(x.name))) {
      if (have.has(candidateKey(c))) {
        skipped.push(c.name);
        continue;
      }
      const { id: serverId } = await this.o.host.addUpstream({ name: c.name, config: candidateConfig(c) });
      have.add(candidateKey(c));
      imported.push(serverId);
    }
    const change = entry ? this.#change(await this.o.registry.replaceWithSpillway(id, names, entry)) : undefined;
    return { imported, skipped, ...(change ? { change } : {}) };
  }

  async restore(id: ClientIdName) {
    const r = await this.o.registry.restore(id);
    return { file: r.file, deleted: r.deleted };
  }

  /**
   * Drift: repairs every stale Spillway entry (port, token or executable path changed), with a backup —
   * only entries written from this data folder, and HTTP ones only while the hub's port is a lasting one.
   * Another Spillway's entry is left byte for byte (issue 13, item 6).
   */
  async repair() {
    const out: { id: ClientIdName; repaired: boolean; restartHint?: string; error?: string }[] = [];
    const lasting = !this.o.host.endpoint().unstable;
    const desired = await this.#desiredAll();
    for (const info of await this.o.registry.list((id) => desired.get(id))) {
      if (info.state?.state !== 'stale' || !info.entry) continue;
      if (!writtenFrom(info.entry, { dataDir: this.o.dataDir, clientToken: this.o.tokens.get(info.id) })) continue;
      if (desired.get(info.id)?.kind === 'http' && !lasting) continue;
      try {
        const r = await this.connect(info.id);
        out.push({ id: info.id, repaired: r.changed, ...(r.restartHint ? { restartHint: r.restartHint } : {}) });
      } catch (err) {
        out.push({ id: info.id, repaired: false, error: (err as Error).message });
      }
    }
    return out;
  }
}

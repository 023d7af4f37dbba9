/** MCP clients of the fake backend: detected clients and their config files, as text in memory. */
import type { ClientIdName, ClientInfo } from '../../shared/api-clients.js';
import type { SessionInfo } from '../../shared/api.js';
import type { FakeBackend, Handlers } from './fake-backend.js';

interface FakeClient {
  info: ClientInfo;
  /** Other servers in its file, by name → command line. */
  servers: Record<string, string>;
  /** Spillway's entry as the file has it now (it goes stale when the port changes after Connect). */
  written?: string;
  /** What Spillway last replaced, for Restore. */
  backup?: { servers: Record<string, string>; state: ClientInfo['state']; written?: string };
  /** The app changed its file after Spillway's last change (Restore then undoes only Spillway's change). */
  editedSince?: boolean;
}

/** The key the fake hands out for any other client. */
export const FAKE_OTHER_KEY = 'fake-other-client-key-0123456789';
/** The key the fake hands out after "New key". */
export const FAKE_NEW_OTHER_KEY = 'fake-other-client-new-key-987654';

export class FakeClients {
  readonly byId = new Map<ClientIdName, FakeClient>();
  sessions: SessionInfo[] = [];
  /** The key handed to any other client now. */
  otherKey = FAKE_OTHER_KEY;

  constructor(private readonly hub: FakeBackend) {}

  /** Adds a detected client; a `current` or `stale` one has Spillway's entry already (`written`, else today's). */
  add(
    id: ClientIdName,
    displayName: string,
    options: { installed?: boolean; state?: ClientInfo['state']; servers?: Record<string, string>; lastSeen?: string; written?: string } = {},
  ): void {
    const servers = options.servers ?? {};
    const kind = id === 'claude-desktop' ? 'stdio' : 'http';
    const connected = options.state === 'current' || options.state === 'stale';
    this.byId.set(id, {
      servers,
      ...(connected ? { written: options.written ?? this.#entryText(kind) } : {}),
      info: {
        id,
        displayName,
        installed: options.installed ?? true,
        configPresent: options.installed ?? true,
        configPath: `/home/me/.config/${id}/mcp.json`,
        restorable: false,
        state: options.state ?? 'absent',
        restartRequired: id === 'claude-desktop',
        kind,
        servers: Object.keys(servers).length,
        ...(options.lastSeen ? { lastSeen: options.lastSeen } : {}),
      },
    });
  }

  entryText(c: FakeClient): string {
    return this.#entryText(c.info.kind);
  }

  #entryText(kind: ClientInfo['kind']): string {
    return kind === 'stdio'
      ? `"spillway": {\n  "command": "/Applications/Spillway.app/Contents/MacOS/Spillway",\n  "args": ["bridge"]\n}`
      : `"spillway": {\n  "url": "http://127.0.0.1:${this.hub.settings.port}/mcp",\n  "headers": { "Authorization": "Bearer ••••" }\n}`;
  }

  /** The hub already runs this command line (it deduplicates by command + args, whatever the name). */
  #runs(line: string): boolean {
    return [...this.hub.servers.values()].some((s) => s.config.type === 'stdio' && [s.config.command, ...(s.config.args ?? [])].join(' ') === line);
  }

  #get(id: ClientIdName): FakeClient | undefined {
    return this.byId.get(id);
  }

  #change(c: FakeClient, state: ClientInfo['state']) {
    c.backup = { servers: { ...c.servers }, state: c.info.state, written: c.written };
    c.written = state === 'current' ? this.entryText(c) : undefined;
    const changed = c.info.state !== state;
    c.info = { ...c.info, state, configPresent: true, restorable: true, servers: Object.keys(c.servers).length };
    return {
      ok: true as const,
      value: {
        file: c.info.configPath,
        changed,
        backup: `${c.info.configPath}.bak`,
        restartRequired: c.info.restartRequired,
        restartHint: c.info.restartRequired ? `Quit and reopen ${c.info.displayName}.` : undefined,
      },
    };
  }

  readonly handlers: Handlers = {
    'clients.list': () => ({ ok: true, value: [...this.byId.values()].map((c) => c.info) }),
    'clients.preview': (req) => {
      const c = this.#get(req.id);
      if (!c) return { ok: false, code: 'not_found', message: `no client ${req.id}` };
      // As the hub: an HTTP entry on a port that changes at every start is refused.
      if (c.info.kind === 'http' && this.hub.settings.port === 0)
        return {
          ok: false,
          code: 'unavailable',
          message: 'Spillway runs on port 0 (a new port at every start), so this entry would stop working when it restarts',
        };
      const action = c.info.state === 'current' ? 'none' : c.info.state === 'stale' ? 'update' : 'add';
      // With `replace`, the servers the client's file would lose to Spillway's one entry.
      const removes = (req.replace ?? []).filter((n) => n in c.servers);
      const moving = removes.length > 0 && action === 'none' ? 'update' : action;
      return {
        ok: true,
        value: { file: c.info.configPath, action: moving, entryText: this.entryText(c), removes, notes: [], restartRequired: c.info.restartRequired },
      };
    },
    'clients.previewDisconnect': (req) => {
      const c = this.#get(req.id);
      if (!c) return { ok: false, code: 'not_found', message: `no client ${req.id}` };
      return {
        ok: true,
        value: { file: c.info.configPath, ...(c.written ? { entryText: c.written } : {}), restartRequired: c.info.restartRequired },
      };
    },
    'clients.connect': (req) => {
      const c = this.#get(req.id);
      if (!c) return { ok: false, code: 'not_found', message: `no client ${req.id}` };
      if (c.info.state === 'error') return { ok: false, code: 'invalid', message: `${c.info.configPath} is not valid JSON; it was left as it is` };
      return this.#change(c, 'current');
    },
    'clients.disconnect': (req) => {
      const c = this.#get(req.id);
      if (!c) return { ok: false, code: 'not_found', message: `no client ${req.id}` };
      return this.#change(c, 'absent');
    },
    'clients.importCandidates': (req) => {
      const c = this.#get(req.id);
      if (!c) return { ok: false, code: 'not_found', message: `no client ${req.id}` };
      return {
        ok: true,
        value: Object.entries(c.servers).map(([name, line]) => {
          const [command, ...args] = line.split(' ');
          // As the hub: the same command line is the same server; one that uses the app's own variables stays in the app.
          const variable = /\$\{[^}]*\}/.exec(line)?.[0];
          const clientOnly = variable
            ? `uses ${variable}, which only ${c.info.displayName} can fill in; it stays in ${c.info.displayName}`
            : undefined;
          return {
            name,
            kind: 'stdio' as const,
            command,
            args,
            alreadyImported: this.#runs(line),
            sameAs: line,
            ...(clientOnly ? { clientOnly } : {}),
          };
        }),
      };
    },
    'clients.import': (req) => {
      const c = this.#get(req.id);
      if (!c) return { ok: false, code: 'not_found', message: `no client ${req.id}` };
      const imported: string[] = [];
      const skipped: string[] = [];
      for (const name of req.names) {
        const line = c.servers[name];
        if (!line || this.hub.servers.has(name) || this.#runs(line)) {
          skipped.push(name);
          continue;
        }
        const [command, ...args] = line.split(' ');
        this.hub.seedServer(name, { type: 'stdio', command, args, enabled: true, prefix: true } as never);
        imported.push(name);
      }
      if (!req.replace) return { ok: true, value: { imported, skipped } };
      const backup = { servers: { ...c.servers }, state: c.info.state, written: c.written };
      for (const name of req.names) delete c.servers[name];
      const change = this.#change(c, 'current').value;
      c.backup = backup;
      return { ok: true, value: { imported, skipped, change } };
    },
    'clients.restore': (req) => {
      const c = this.#get(req.id);
      if (!c?.backup)
        return { ok: false, code: 'not_found', message: `Spillway has not changed ${c?.info.displayName ?? req.id}'s file, so there is no backup` };
      c.servers = c.backup.servers;
      c.written = c.backup.written;
      c.info = { ...c.info, state: c.backup.state, restorable: false, servers: Object.keys(c.servers).length };
      c.backup = undefined;
      const restartHint = c.info.restartRequired ? `Quit and reopen ${c.info.displayName}.` : `${c.info.displayName} picks up the change by itself.`;
      return {
        ok: true,
        value: {
          file: c.info.configPath,
          deleted: false,
          changedSinceWrite: c.editedSince ?? false,
          restartRequired: c.info.restartRequired,
          restartHint,
        },
      };
    },
    'clients.repair': () => ({ ok: true, value: [] }),
    'clients.otherAccess': (req) => {
      if (req.renew) this.otherKey = FAKE_NEW_OTHER_KEY;
      return {
        ok: true,
        value: {
          url: 'http://127.0.0.1:47821/mcp',
          urlWithKey: `http://127.0.0.1:47821/mcp?token=${this.otherKey}`,
          header: `Authorization: Bearer ${this.otherKey}`,
        },
      };
    },
  };
}

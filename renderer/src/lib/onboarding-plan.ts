/**
 * What first-run setup will do, decided from what the user picked: the servers found in their clients
 * (one row per distinct server, however many clients list it) and, per client, the one or two contract
 * calls that import those servers and connect the client through Spillway. Pure, so it is tested alone.
 */
import type { ClientIdName, ClientInfo } from '../../../shared/api-clients.js';
import type { Res } from './api.js';

export type ImportCandidate = Res<'clients.importCandidates'>[number];

/** One distinct server found in the user's clients (the same command, args and env, or the same URL and headers). */
export interface FoundServer {
  key: string;
  name: string;
  kind: ImportCandidate['kind'];
  /** The command line or URL, as the user would recognise it. */
  source: string;
  /** Which clients list it, under which name. */
  in: Array<{ client: ClientIdName; name: string }>;
  /** Spillway already runs it: nothing to import, but the client can still reach it through Spillway. */
  alreadyImported: boolean;
  /** Why it stays in its app (it uses a variable only the app fills in): never imported, never moved. */
  clientOnly?: string;
}

/** The calls for one client, run in order: `import` (which also connects when `replace`), then `connect`. */
export interface ClientStep {
  client: ClientIdName;
  /** Servers of this client to import (and, with `replace`, to move out of its file). */
  names: string[];
  replace: boolean;
  /** Call clients.connect after (or instead of) the import. */
  connect: boolean;
  /** Whether the client's own file is written (shown in the confirm step with its exact entry). */
  writesFile: boolean;
}

/** The hub's key for "the same server": it compares env and headers too, which the window never sees. */
export function serverKey(c: ImportCandidate): string {
  return c.sameAs;
}

/** The clients' servers, one row per distinct server, in the order the clients list them. */
export function foundServers(candidates: ReadonlyArray<{ client: ClientIdName; candidates: readonly ImportCandidate[] }>): FoundServer[] {
  const byKey = new Map<string, FoundServer>();
  for (const { client, candidates: list } of candidates) {
    for (const c of list) {
      const key = serverKey(c);
      const known = byKey.get(key);
      if (known) {
        known.in.push({ client, name: c.name });
        known.alreadyImported ||= c.alreadyImported;
        continue;
      }
      byKey.set(key, {
        key,
        name: c.name,
        kind: c.kind,
        source: c.url ?? [c.command ?? '', ...(c.args ?? [])].join(' '),
        in: [{ client, name: c.name }],
        alreadyImported: c.alreadyImported,
        ...(c.clientOnly ? { clientOnly: c.clientOnly } : {}),
      });
    }
  }
  return [...byKey.values()];
}

/** A client first-run setup can connect: installed, readable, and not already pointing at Spillway. */
export function canConnect(c: ClientInfo): boolean {
  return (c.installed || c.configPresent) && (c.state === 'absent' || c.state === 'stale');
}

/**
 * The calls that carry out the user's choice. Each picked server is imported once (from the first
 * client that lists it); with `replace`, every client that is (or becomes) connected also has the
 * servers Spillway now runs taken out of its own file, so it reaches them through Spillway only.
 */
export function planSetup(
  clients: readonly ClientInfo[],
  servers: readonly FoundServer[],
  picked: { clients: ReadonlySet<string>; servers: ReadonlySet<string>; replace: boolean },
): ClientStep[] {
  const steps: ClientStep[] = [];
  const assigned = new Set<string>();
  for (const c of clients) {
    const connecting = canConnect(c) && picked.clients.has(c.id);
    const connected = connecting || c.state === 'current';
    const nameIn = (s: FoundServer) => s.in.find((x) => x.client === c.id)!.name;
    // A server that uses the app's own variables is neither imported nor moved: it stays in the app.
    const mine = servers.filter((s) => !s.clientOnly && s.in.some((x) => x.client === c.id));
    const toImport = mine.filter((s) => picked.servers.has(s.key) && !s.alreadyImported && !assigned.has(s.key));
    for (const s of toImport) assigned.add(s.key);

    if (connected && picked.replace) {
      // Everything Spillway will run that this client lists moves behind Spillway.
      const moved = mine.filter((s) => s.alreadyImported || picked.servers.has(s.key)).map(nameIn);
      if (moved.length > 0) steps.push({ client: c.id, names: moved, replace: true, connect: false, writesFile: true });
      else if (connecting) steps.push({ client: c.id, names: [], replace: false, connect: true, writesFile: true });
    } else if (toImport.length > 0 || connecting) {
      steps.push({ client: c.id, names: toImport.map(nameIn), replace: false, connect: connecting, writesFile: connecting });
    }
  }
  return steps;
}

/**
 * What an Update of an installed npm package or bundle does once the new version is in the data folder
 * (issue 16, audit s19): the version the server ran stays, recorded as its previous install (so the
 * next start keeps it); the server is switched over and watched until it is ready or fails for good (the
 * hub's own retries gave up, or it was not ready in time); a version that does not start is switched
 * back, and the user told so in plain words. Inputs, secrets
 * and policies are the server's own either way: only the install it runs changes.
 */
import type { ServerConfig } from '../../../shared/config.js';
import type { HubEvent } from '../../../shared/events.js';
import type { InstallsFolder } from '../registry/install/installs-folder.js';
import { ControlError } from './control-error.js';

/** Whether a server just switched over started: undefined when that is not known (disabled, stopped, restarted). */
export type StartOutcome = { started: true } | { started: false; reason: string } | undefined;

/** Waits until a server (switched over just now) is ready, or has failed for good. */
export type StartWatch = (id: string) => Promise<StartOutcome>;

/** What serverStartOutcome reads of the hub: its servers' status, and its events. */
export interface StartWatchHub {
  pool: {
    get(id: string): { status: string; error?: string; reconnecting?: boolean; wake?(): boolean } | undefined;
  };
  events: { subscribe(listener: (event: HubEvent) => void): () => void };
}

/** How long an Update waits for the new version to be ready; one not ready by then is given up on. */
const START_WAIT_MS = 120_000;

/** A failure's words without the upstream's note on its retries (Spillway goes back instead). */
const withoutRetryNote = (error: string) => error.replace(/\s*\((?:stopped after|Spillway tries again)[^()]*\)\s*$/, '');

/**
 * A status as a start's outcome; null while it may still start. An `error` is told before every retry
 * the hub makes (a server that exits once at its first start is started again): only one after which
 * no try is on its way (a crash loop stopped, or no retry at all) is the end.
 */
function outcomeOf(status: string, error: string | undefined, reconnecting: boolean): StartOutcome | null {
  if (status === 'connecting') return null;
  // Needing a sign-in is the server asking for one: it started.
  if (status === 'ready' || status === 'needs-sign-in') return { started: true };
  if (status === 'error') return reconnecting ? null : { started: false, reason: withoutRetryNote(error ?? 'it stopped with an error') };
  return undefined;
}

/**
 * The hub's StartWatch: the server's status now, else its next status that settles it. One still not
 * ready at the deadline (failing and trying again, or connecting) has not started. A server that starts
 * on first use is started now: an update is checked while the user is there.
 */
export function serverStartOutcome(hub: StartWatchHub, timeoutMs = START_WAIT_MS): StartWatch {
  return (id) =>
    new Promise((resolve) => {
      const upstream = hub.pool.get(id);
      if (!upstream) return resolve(undefined);
      if (upstream.status === 'idle') upstream.wake?.();
      const now = outcomeOf(upstream.status, upstream.error, upstream.reconnecting === true);
      if (now !== null) return resolve(now);
      let lastError = upstream.error;
      let done = false;
      const finish = (outcome: StartOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        off();
        resolve(outcome);
      };
      const timer = setTimeout(() => {
        const up = hub.pool.get(id);
        const waiting = up?.status === 'error' || up?.status === 'connecting';
        const seconds = Math.round(timeoutMs / 1000);
        const reason = lastError ? withoutRetryNote(lastError) : `it was not ready after ${seconds} seconds`;
        finish(waiting ? { started: false, reason } : (outcomeOf(up?.status ?? 'stopped', up?.error, false) ?? undefined));
      }, timeoutMs);
      timer.unref?.();
      const off = hub.events.subscribe((event) => {
        if (event.type !== 'upstream.status' || event.server !== id) return;
        if (event.status !== 'error') {
          const outcome = outcomeOf(event.status, event.error, false);
          if (outcome !== null) finish(outcome);
          return;
        }
        lastError = event.error ?? lastError;
        // Whether it tries again is settled only after its status is told (Upstream.#onDropped).
        queueMicrotask(() => {
          const up = hub.pool.get(id);
          if (up?.status !== 'error') return; // trying again already, or settled by its next status
          const outcome = outcomeOf(up.status, up.error, up.reconnecting === true);
          if (outcome !== null) finish(outcome);
        });
      });
    });
}

export interface WatchedSwitch {
  id: string;
  /** The package or bundle, and the versions switched from and to. */
  name: string;
  from: { version: string; folder: string };
  to: { version: string; folder: string };
  installs: InstallsFolder;
  updateUpstream(req: { id: string; change(current: ServerConfig): ServerConfig | Promise<ServerConfig> }): Promise<{ id: string }>;
  /** The config as saved then, switched to the new version (throws when it no longer runs the old one). */
  forward(current: ServerConfig): ServerConfig | Promise<ServerConfig>;
  /** The config as saved then, switched back to the old version (throws when it no longer runs the new one). */
  back(current: ServerConfig): ServerConfig | Promise<ServerConfig>;
  startOutcome?: StartWatch;
  upstreamConfigs?(): Record<string, ServerConfig>;
}

/** A reason as the hub words it, without its closing full stop (it is quoted inside a sentence). */
const quoted = (reason: string) => reason.trim().replace(/[.\s]+$/, '');

/**
 * Records the old version as the server's previous install, switches the server over and waits for it
 * to start. A version that does not start is switched back, its folder removed when no server runs it,
 * and a ControlError says what happened; the record goes back to what it was.
 */
export async function switchWatched(s: WatchedSwitch): Promise<void> {
  const before = (await s.installs.previous.read())[s.id];
  // Recorded first: a hub that stops during the switch still keeps the old version at its next start.
  await s.installs.previous.set(s.id, s.from.folder);
  try {
    await s.updateUpstream({ id: s.id, change: s.forward });
  } catch (err) {
    await s.installs.previous.set(s.id, before).catch(() => undefined);
    throw err;
  }
  const outcome = await s.startOutcome?.(s.id);
  if (!outcome || outcome.started) return;
  const failed = `Version ${s.to.version} of ${s.name} did not start (${quoted(outcome.reason)})`;
  try {
    await s.updateUpstream({ id: s.id, change: s.back });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ControlError('unavailable', `${failed}, and Spillway could not go back to ${s.from.version}: ${why}`, 'id');
  }
  await s.installs.previous.set(s.id, before).catch(() => undefined);
  // The new version's process has stopped by now (the switch back waits for it).
  await s.installs.removeIfUnused(s.to.folder, Object.values(s.upstreamConfigs?.() ?? {})).catch(() => false);
  throw new ControlError('unavailable', `${failed}; Spillway went back to ${s.from.version}. Its settings are kept.`, 'id');
}

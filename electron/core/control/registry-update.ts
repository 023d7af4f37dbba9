/**
 * What an Update of an installed npm package or bundle does once the new version is in the data folder
 * (issue 16, audit s19): the version the server ran stays, recorded as its previous install (so the
 * next start keeps it); the server is switched over and watched until it is ready or fails for good (the
 * hub's own retries gave up, or it was not ready in time); a version that does not start is switched
 * back, not offered to that server again, and the user told so in plain words. A switch not yet seen
 * starting when the hub stops is recorded as unconfirmed, and watched at the hub's next start as the
 * Update would have watched it (audit s20). Inputs, secrets and policies are the server's own either
 * way: only the install it runs changes.
 */
import type { ServerConfig } from '../../../shared/config.js';
import type { HubEvent } from '../../../shared/events.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { InstallsFolder } from '../registry/install/installs-folder.js';
import type { InstalledPackage } from '../registry/install/npm-install.js';
import type { NpmInstaller } from '../registry/install/npm-installer.js';
import { packageOfFile, type PackageRef } from '../registry/install/package-folders.js';
import { ControlError } from './control-error.js';

/** Whether a server just switched over started: undefined when that is not known (disabled, stopped, removed). */
export type StartOutcome = { started: true } | { started: false; reason: string } | undefined;

/**
 * Waits until a server (switched over just now) is ready, or has failed for good. `untilAdded`: one the
 * hub does not run yet (it is starting) is watched once it does. `untilStarts`: one the hub runs but that
 * is not running (turned off, stopped) is watched at its next start while this hub runs.
 */
export type StartWatch = (id: string, options?: { untilAdded?: boolean; untilStarts?: boolean }) => Promise<StartOutcome>;

/** What serverStartOutcome reads of the hub: its servers' status, and its events. */
export interface StartWatchHub {
  pool: {
    get(id: string): { status: string; error?: string; reconnecting?: boolean; restarting?: boolean; wake?(): boolean } | undefined;
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
  const watch: StartWatch = async (id, options) => {
    const outcome = await watchOnce(id, options);
    // Not running (turned off, stopped): with untilStarts, its next start is the one watched.
    if (outcome === undefined && options?.untilStarts && hub.pool.get(id)) return nextStart(hub, id).then(() => watch(id, options));
    return outcome;
  };
  const watchOnce: StartWatch = (id, options) =>
    new Promise((resolve) => {
      const upstream = hub.pool.get(id);
      if (!upstream && options?.untilAdded) return resolve(onceAdded(hub, id, timeoutMs).then((added) => (added ? watchOnce(id) : undefined)));
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
        // Restarted while watched: the same version starts again, and that start is the one watched.
        if (event.status === 'stopped' && hub.pool.get(id)?.restarting) return;
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
  return watch;
}

/** Resolves at the next status of server `id` that is not its being off (turned on, woken, started again). */
function nextStart(hub: StartWatchHub, id: string): Promise<void> {
  return new Promise((resolve) => {
    const off = hub.events.subscribe((event) => {
      if (event.type !== 'upstream.status' || event.server !== id || event.status === 'disabled' || event.status === 'stopped') return;
      off();
      resolve();
    });
  });
}

/** Resolves true once the hub runs server `id` (its first status), false when it does not within `timeoutMs`. */
function onceAdded(hub: StartWatchHub, id: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (added: boolean) => {
      clearTimeout(timer);
      off();
      resolve(added);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    timer.unref?.();
    const off = hub.events.subscribe((event) => {
      if (event.type === 'upstream.status' && event.server === id && hub.pool.get(id)) done(true);
    });
  });
}

/** The server no longer runs what an update downloaded a newer version of (it was edited meanwhile). */
export const changedMeanwhile = (id: string, ref: { name: string; version: string }) =>
  new ControlError(
    'conflict',
    `"${id}" was changed while the update downloaded and no longer runs ${ref.name} ${ref.version}, so the update was not applied. Press Update again if it is still offered.`,
    'id',
  );

/** A switch back from the new version to the old one. */
export interface SwitchBack {
  id: string;
  /** The package or bundle, and the versions switched from and to. */
  name: string;
  from: { version: string; folder: string };
  to: { version: string; folder: string };
  installs: InstallsFolder;
  updateUpstream(req: { id: string; change(current: ServerConfig): ServerConfig | Promise<ServerConfig> }): Promise<{ id: string }>;
  /** The config as saved then, switched back to the old version (throws when it no longer runs the new one). */
  back(current: ServerConfig): ServerConfig | Promise<ServerConfig>;
  upstreamConfigs?(): Record<string, ServerConfig>;
}

export interface WatchedSwitch extends SwitchBack {
  /** The config as saved then, switched to the new version (throws when it no longer runs the old one). */
  forward(current: ServerConfig): ServerConfig | Promise<ServerConfig>;
  startOutcome?: StartWatch;
}

/** A reason as the hub words it, without its closing full stop (it is quoted inside a sentence). */
const quoted = (reason: string) => reason.trim().replace(/[.\s]+$/, '');

/** The `failed` record's value: the package or bundle and the version that did not start. */
export const failedVersion = (name: string, version: string) => `${name}@${version}`;

/**
 * Records the old version as the server's previous install, switches the server over and waits for it
 * to start. A version that does not start is switched back (goBack). One not seen starting or failing
 * (the hub or the server stopped first) stays recorded as unconfirmed, and a ControlError says so: the
 * hub's next start watches it (confirmAtStart).
 */
export async function switchWatched(s: WatchedSwitch): Promise<void> {
  // One at a time: a second would find the server switched and set the records back under the first.
  if (s.installs.updating.has(s.id)) throw new ControlError('conflict', `"${s.id}" is being updated already: wait for that update to finish.`, 'id');
  s.installs.updating.add(s.id);
  try {
    await switchAndWatch(s);
  } finally {
    s.installs.updating.delete(s.id);
  }
}

async function switchAndWatch(s: WatchedSwitch): Promise<void> {
  const before = (await s.installs.previous.read())[s.id];
  // Recorded first: a hub that stops during the switch still keeps the old version at its next start,
  // and watches the new one start.
  await s.installs.previous.set(s.id, s.from.folder);
  if (s.startOutcome) await s.installs.unconfirmed.set(s.id, s.to.folder);
  try {
    await s.updateUpstream({ id: s.id, change: s.forward });
  } catch (err) {
    await s.installs.previous.set(s.id, before).catch(() => undefined);
    await s.installs.unconfirmed.set(s.id, undefined).catch(() => undefined);
    throw err;
  }
  if (!s.startOutcome) return;
  const outcome = await s.startOutcome(s.id);
  if (outcome?.started) return s.installs.unconfirmed.set(s.id, undefined);
  if (!outcome)
    throw new ControlError(
      'unavailable',
      `${s.name} was switched to version ${s.to.version}, but it stopped before it was seen starting, so the update is not confirmed. The next time Spillway starts, it goes back to ${s.from.version} if ${s.to.version} does not start.`,
      'id',
    );
  throw await goBack(s, outcome.reason, before);
}

/**
 * Switches a server whose new version did not start back to the old one; the records go back to what
 * they were (`before`: the previous install recorded before the update), the version is not offered to
 * the server again, its folder is removed when no server runs it. The ControlError that says what happened.
 */
export async function goBack(s: SwitchBack, reason: string, before: string | undefined): Promise<ControlError> {
  const failed = `Version ${s.to.version} of ${s.name} did not start (${quoted(reason)})`;
  // Recorded before the switch back, so that its status events find the records as they end.
  const records = { previous: (await s.installs.previous.read())[s.id], unconfirmed: (await s.installs.unconfirmed.read())[s.id] };
  await s.installs.failed.set(s.id, failedVersion(s.name, s.to.version)).catch(() => undefined);
  await s.installs.unconfirmed.set(s.id, undefined).catch(() => undefined);
  await s.installs.previous.set(s.id, before).catch(() => undefined);
  try {
    await s.updateUpstream({ id: s.id, change: s.back });
  } catch (err) {
    // Still on the new version: as it was.
    await s.installs.failed.set(s.id, undefined).catch(() => undefined);
    await s.installs.unconfirmed.set(s.id, records.unconfirmed).catch(() => undefined);
    await s.installs.previous.set(s.id, records.previous).catch(() => undefined);
    const why = err instanceof Error ? err.message : String(err);
    return new ControlError('unavailable', `${failed}, and Spillway could not go back to ${s.from.version}: ${why}`, 'id');
  }
  // The new version's process has stopped by now (the switch back waits for it).
  await s.installs.removeIfUnused(s.to.folder, Object.values(s.upstreamConfigs?.() ?? {})).catch(() => false);
  return new ControlError('unavailable', `${failed}; Spillway went back to ${s.from.version}. Its settings are kept.`, 'id');
}

/** What confirmAtStart needs: the records, the hub's configs and start watch, and how each kind switches back. */
export interface StartCheck {
  installs: InstallsFolder;
  upstreamConfigs(): Record<string, ServerConfig>;
  updateUpstream: SwitchBack['updateUpstream'];
  startOutcome: StartWatch;
  /** How server `id`, running `config`, goes back to its previous install `folder`; undefined when it cannot. */
  backOf(id: string, config: ServerConfig, folder: string): Promise<Omit<SwitchBack, 'installs' | 'updateUpstream'> | undefined>;
  /** Told what happened to an update that did not start (the hub logs it). */
  onNotice?(message: string): void;
}

/**
 * As the hub starts: each update it stopped before it was seen starting (the unconfirmed record) is
 * watched now, as the Update would have watched it. One that starts is confirmed; one whose retries
 * give up goes back to the previous install. One that cannot be checked (the server was changed or
 * removed since, the previous install is gone) is forgotten; one not started this time (turned off) is
 * watched when it starts in this run, else at the next start. Its switch back takes the server's turn
 * (installs.updating) as an Update and a Go back do: one the user is switching then is left to the next
 * start. Never rejects (what it could not do is tried again at the next start).
 */
export async function confirmAtStart(c: StartCheck): Promise<void> {
  await confirmEach(c).catch(() => undefined);
}

async function confirmEach(c: StartCheck): Promise<void> {
  const [pending, previous] = await Promise.all([c.installs.unconfirmed.read(), c.installs.previous.read()]);
  await Promise.all(
    Object.entries(pending).map(async ([id, folder]) => {
      const config = c.upstreamConfigs()[id];
      const from = previous[id];
      const plan = config && from ? await c.backOf(id, config, from).catch(() => undefined) : undefined;
      if (!plan || plan.to.folder !== folder) return c.installs.unconfirmed.set(id, undefined);
      // A server turned off now is watched when it is turned on: one seen starting then is confirmed, so
      // a start that fails long after (offline at login) does not send it back.
      const outcome = await c.startOutcome(id, { untilAdded: true, untilStarts: true });
      if (!outcome) return;
      // One switch of a server at a time (switchWatched, Go back): one the user is switching now is left,
      // its record for the next start; taken before the record is read again, so that no switch ends it meanwhile.
      if (c.installs.updating.has(id)) return;
      c.installs.updating.add(id);
      try {
        // Settled only while the record is still this one (not ended meanwhile by another Update of it).
        if ((await c.installs.unconfirmed.read())[id] !== folder) return;
        if (outcome.started) return await c.installs.unconfirmed.set(id, undefined);
        const err = await goBack({ ...plan, installs: c.installs, updateUpstream: c.updateUpstream }, outcome.reason, undefined);
        c.onNotice?.(`An update Spillway could not confirm before it stopped: ${err.message}`);
      } finally {
        c.installs.updating.delete(id);
      }
    }),
  );
}

/**
 * The switch of an npm server from the package folder `from` to the installed `to`: only its program
 * (the first argument) changes; the rest (arguments, variables, a timeout set while the update
 * downloaded) stays as it is in the config as saved when the change runs.
 */
export function npmSwitch(npm: NpmInstaller, id: string, from: PackageRef & { folder: string }, to: InstalledPackage) {
  let oldScript = '';
  return {
    forward: (current: ServerConfig): ServerConfig => {
      if (current.type !== 'stdio' || npm.packageOf(current)?.folder !== from.folder) throw changedMeanwhile(id, from);
      oldScript = current.args[0]!;
      return { ...current, args: [to.script, ...current.args.slice(1)] };
    },
    back: (current: ServerConfig): ServerConfig => {
      if (current.type !== 'stdio' || npm.packageOf(current)?.folder !== to.folder) throw changedMeanwhile(id, to);
      return { ...current, args: [oldScript, ...current.args.slice(1)] };
    },
  };
}

/** How an npm server goes back to its previous install `folder` at the hub's start (StartCheck.backOf). */
export async function npmBackOf(npm: NpmInstaller, id: string, config: ServerConfig, folder: string) {
  const to = npm.packageOf(config);
  const from = packageOfFile(npm.dir, join(folder, 'package.json'));
  if (!to || !from || from.name !== to.name || from.folder !== folder || !existsSync(folder)) return undefined;
  // Installed already: found, not downloaded.
  const old = await npm.install(from.name, from.version);
  const back = (current: ServerConfig): ServerConfig => {
    if (current.type !== 'stdio' || npm.packageOf(current)?.folder !== to.folder) throw changedMeanwhile(id, to);
    return { ...current, args: [old.script, ...current.args.slice(1)] };
  };
  return { id, name: to.name, from, to, back };
}

/** Whether `version` of `name` is the one an Update of server `id` went back from: it is not offered again. */
export async function failedBefore(installs: InstallsFolder, id: string, name: string, version: string): Promise<boolean> {
  return (await installs.failed.read().catch(() => ({}) as Record<string, string>))[id] === failedVersion(name, version);
}

/** What `registry.installed` says of a latest version that did not start for this server (and how to try it anyway: InstallsFolder.forgetUpdates). */
export const failedNotice = (version: string) =>
  `Version ${version} did not start when this server was updated to it, so it is not offered again; a newer version will be. To try ${version} anyway, remove the server and add it again.`;

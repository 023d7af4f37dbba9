/** The configured upstream servers, live: status and stderr follow hub events; actions report per server. */
import { isUnreachable, type ApiFailure, type ApiResult, type Backend, type Res } from './api.js';
import type { UpstreamInfo } from '../../../shared/api.js';
import type { HubEvent } from '../../../shared/events.js';
import { coalesced } from './refresh-loop.js';
import type { ServerDraft } from './server-draft.svelte.js';
import { openInNewTab, webAddress, type OpenPage } from './sign-in-page.js';

/** Lines of stderr kept per server in the view (the hub keeps its own bounded tail too). */
const STDERR_LINES = 50;

export type ServerAction = 'restart' | 'remove' | 'toggle' | 'sign-in' | 'sign-out';
export type TestResult = Res<'upstreams.test'>;

export class ServersState {
  #list = $state<UpstreamInfo[]>([]);
  #loaded = $state(false);
  #loadError = $state<ApiFailure | undefined>();
  #actionErrors = $state<Record<string, ApiFailure | undefined>>({});
  #busy = $state<Record<string, ServerAction | undefined>>({});
  /**
   * Sign-ins waiting for the user to finish in their browser: id → the page that was opened, and how many
   * list reads had started by then (a failure only read later ends the wait: see refresh).
   */
  #waiting = $state<Record<string, { page: string; listsBefore: number } | undefined>>({});
  /** List reads started so far. */
  #lists = 0;
  #ids = $derived.by(() => this.#list.map((u) => u.id));
  /** The server just removed, while Undo can put it back (the hub holds it for a few minutes). */
  #removed = $state<{ id: string; label: string } | undefined>();
  #undoError = $state<ApiFailure | undefined>();
  /** The Edit form open in this window (ServerForm notes it): the on/off switch keeps it in step. */
  #editing: ServerDraft | undefined;
  readonly #backend: Backend;

  readonly refresh = coalesced(async () => {
    const read = ++this.#lists;
    const result = await this.#backend.call('upstreams.list', {});
    this.#loaded = true;
    if (result.ok) {
      this.#list = result.value;
      this.#loadError = undefined;
      // Signed in, or the sign-in failed in the browser (the card then says why and offers Sign in again).
      for (const u of result.value) {
        const waiting = this.#waiting[u.id];
        if (waiting && (signedIn(u) || (u.auth?.failure !== undefined && read > waiting.listsBefore))) this.#stopWaiting(u.id);
      }
      this.#forgetUnreachable();
    } else {
      this.#loadError = result;
    }
  });

  readonly #openPage: OpenPage;

  constructor(backend: Backend, openPage: OpenPage = openInNewTab) {
    this.#backend = backend;
    this.#openPage = openPage;
  }

  get list(): UpstreamInfo[] {
    return this.#list;
  }
  get ids(): string[] {
    return this.#ids;
  }
  get loaded(): boolean {
    return this.#loaded;
  }
  get loadError(): ApiFailure | undefined {
    return this.#loadError;
  }
  errorFor(id: string): ApiFailure | undefined {
    return this.#actionErrors[id];
  }
  busyWith(id: string): ServerAction | undefined {
    return this.#busy[id];
  }
  /** While a sign-in waits for the browser: the sign-in page's address (a link to open it again). */
  signInPage(id: string): string | undefined {
    return this.#waiting[id]?.page;
  }

  /** Loads the list and follows events; returns the stop function. */
  start(): () => void {
    const stop = this.#backend.subscribe((e) => this.#apply(e));
    void this.refresh();
    return stop;
  }

  #apply(e: HubEvent): void {
    if (e.type === 'upstream.status') {
      const known = this.#list.some((u) => u.id === e.server);
      if (!known) {
        void this.refresh();
        return;
      }
      const before = this.#list.find((u) => u.id === e.server);
      this.#list = this.#list.map((u) =>
        u.id === e.server ? { ...u, status: e.status, error: e.error ?? (e.status === 'error' ? u.error : undefined), tools: e.tools ?? u.tools } : u,
      );
      // The event carries no sign-in state: a server that signs in or out is read again for it.
      const auth = before?.auth?.state ?? 'none';
      if (e.status === 'needs-sign-in' ? auth !== 'needs-sign-in' : auth === 'needs-sign-in' || this.#waiting[e.server]) void this.refresh();
    } else if (e.type === 'upstream.stderr') {
      this.#list = this.#list.map((u) => (u.id === e.server ? { ...u, stderrTail: [...u.stderrTail, e.line].slice(-STDERR_LINES) } : u));
    } else if (e.type === 'config.changed' || e.type === 'catalog.changed') {
      void this.refresh();
    } else if (e.type === 'log' && e.server !== undefined && this.#waiting[e.server]) {
      // The hub logs a sign-in that failed in the browser: the server's sign-in info now says why.
      void this.refresh();
    }
  }

  /** The hub answered: "cannot reach Spillway" on a card is no longer true (other errors stay until the next action). */
  #forgetUnreachable(): void {
    if (Object.values(this.#actionErrors).some(isUnreachable)) {
      this.#actionErrors = Object.fromEntries(Object.entries(this.#actionErrors).filter(([, e]) => !isUnreachable(e)));
    }
    if (isUnreachable(this.#undoError)) this.#undoError = undefined;
  }

  async #act<T>(id: string, action: ServerAction, run: () => Promise<ApiResult<T>>): Promise<boolean> {
    this.#busy = { ...this.#busy, [id]: action };
    const result = await run();
    this.#busy = { ...this.#busy, [id]: undefined };
    this.#actionErrors = { ...this.#actionErrors, [id]: result.ok ? undefined : result };
    if (result.ok) await this.refresh();
    return result.ok;
  }

  restart(id: string): Promise<boolean> {
    return this.#act(id, 'restart', () => this.#backend.call('upstreams.restart', { id }));
  }

  async remove(id: string): Promise<boolean> {
    const label = this.#list.find((u) => u.id === id)?.config.label ?? id;
    const ok = await this.#act(id, 'remove', async () => {
      const result = await this.#backend.call('upstreams.remove', { id });
      // Offered before the list is read again: meanwhile the card is gone, and Undo must not name (and
      // put back) a server removed earlier.
      this.#undoError = undefined;
      this.#removed = result.ok && result.value.undoable === true ? { id, label } : undefined;
      return result;
    });
    if (!ok) this.#removed = undefined;
    return ok;
  }

  /** The server just removed, while Undo is offered. */
  get removed(): { id: string; label: string } | undefined {
    return this.#removed;
  }
  get undoError(): ApiFailure | undefined {
    return this.#undoError;
  }

  /** Puts the server just removed back, with its keys and sign-in. */
  async undoRemove(): Promise<boolean> {
    const removed = this.#removed;
    if (!removed) return false;
    const result = await this.#backend.call('upstreams.undoRemove', { id: removed.id });
    this.#undoError = result.ok ? undefined : result;
    if (result.ok) {
      this.#removed = undefined;
      await this.refresh();
    }
    return result.ok;
  }

  /** Stops offering Undo. */
  dismissRemoved(): void {
    this.#removed = undefined;
    this.#undoError = undefined;
  }

  /** Notes the draft of the Edit form open in this window; returns the function that forgets it. */
  editing(draft: ServerDraft): () => void {
    this.#editing = draft;
    return () => {
      if (this.#editing === draft) this.#editing = undefined;
    };
  }

  /**
   * Switches a server on or off: only the switch is sent, so a change saved elsewhere since the list was
   * read stays. The server's Edit form, if open here, takes the switch (see ServerDraft.switched), so
   * its Save is not refused for a change made in this same window.
   */
  async setEnabled(id: string, enabled: boolean): Promise<boolean> {
    const before = this.#list.find((u) => u.id === id);
    if (!before) return false;
    const ok = await this.#act(id, 'toggle', () => this.#backend.call('upstreams.setEnabled', { id, enabled }));
    const after = this.#list.find((u) => u.id === id);
    const draft = this.#editing;
    // Only when the switch is all that changed: a change made elsewhere meanwhile still needs the form's Reload.
    if (
      ok &&
      after &&
      draft?.editingId === id &&
      JSON.stringify({ ...before.config, enabled: after.config.enabled }) === JSON.stringify(after.config)
    )
      draft.switched(before.revision, after.config.enabled, after.revision);
    return ok;
  }

  /**
   * Starts a sign-in: the hub makes the authorization URL; the desktop app has opened it already, the
   * browser UI opens it in a new tab. The card then waits until the server is signed in (or Cancel).
   */
  async signIn(id: string): Promise<boolean> {
    this.#busy = { ...this.#busy, [id]: 'sign-in' };
    const result = await this.#backend.call('upstreams.signIn', { id });
    this.#busy = { ...this.#busy, [id]: undefined };
    let failure: ApiFailure | undefined = result.ok ? undefined : result;
    if (result.ok) {
      const page = webAddress(result.value.authorizationUrl);
      if (!page) {
        failure = {
          ok: false,
          code: 'invalid',
          message: 'The server gave a sign-in address that is not a web address, so Spillway did not open it.',
        };
      } else {
        if (!result.value.openedInBrowser) this.#openPage(page);
        this.#waiting = { ...this.#waiting, [id]: { page, listsBefore: this.#lists } };
      }
    }
    this.#actionErrors = { ...this.#actionErrors, [id]: failure };
    return failure === undefined;
  }

  /** Stops waiting for a sign-in; the hub refuses the browser's redirect if it still comes back. */
  async cancelSignIn(id: string): Promise<void> {
    this.#stopWaiting(id);
    const result = await this.#backend.call('upstreams.cancelSignIn', { id });
    this.#actionErrors = { ...this.#actionErrors, [id]: result.ok ? undefined : result };
  }

  #stopWaiting(id: string): void {
    this.#waiting = { ...this.#waiting, [id]: undefined };
  }

  /** Forgets the server's tokens (the hub revokes them where it can); it then needs a sign-in again. */
  signOut(id: string): Promise<boolean> {
    this.#stopWaiting(id);
    return this.#act(id, 'sign-out', () => this.#backend.call('upstreams.signOut', { id }));
  }

  /** Connects to the draft's server without saving it and lists its tools. */
  async test(draft: ServerDraft): Promise<ApiResult<TestResult> | undefined> {
    const config = draft.validateConfig();
    if (!config) return undefined;
    // Editing: the hub tests with the stored values where the form still shows them masked.
    const result = await this.#backend.call('upstreams.test', { config, ...(draft.editingId ? { id: draft.editingId } : {}) });
    if (!result.ok && result.field) draft.setProblem({ field: result.field, message: result.message });
    return result;
  }

  /**
   * Adds or updates the draft's server; on failure the problem is set on the draft (a server changed
   * elsewhere since the form was loaded: its conflict, see reload). Returns the saved id.
   */
  async save(draft: ServerDraft): Promise<string | undefined> {
    const checked = draft.validate(this.#ids);
    if (!checked) return undefined;
    const revision = draft.revision;
    const result = draft.editingId
      ? await this.#backend.call('upstreams.update', { id: checked.id, config: checked.config, ...(revision === undefined ? {} : { revision }) })
      : await this.#backend.call('upstreams.add', {
          id: checked.id,
          ...(checked.label ? { name: checked.label } : {}),
          config: checked.config,
        });
    // A server changed since the form was opened (the hub names the revision); any other refusal is the form's problem.
    if (!result.ok && draft.editingId && result.code === 'conflict' && result.field === 'revision') {
      draft.setConflict(result.message);
      return undefined;
    }
    if (!result.ok) {
      draft.setProblem({ field: result.field ?? 'form', message: result.message });
      return undefined;
    }
    draft.setConflict(undefined);
    await this.refresh();
    return result.value.id;
  }

  /** Loads the edited server's settings as stored now into the draft (after a conflict); false when it is gone. */
  async reload(draft: ServerDraft): Promise<boolean> {
    await this.refresh();
    // The list could not be read: what it holds may be older than the change that caused the conflict.
    if (this.#loadError) {
      draft.setProblem({ field: 'form', message: this.#loadError.message });
      return false;
    }
    const server = this.#list.find((u) => u.id === draft.editingId);
    if (!server) {
      draft.setProblem({ field: 'form', message: 'This server was removed elsewhere. Press Cancel to close the form, then add it again.' });
      return false;
    }
    draft.reload(server.config, server.revision);
    return true;
  }
}

/** Signed in and past the sign-in: the hub reports the tokens and the server no longer asks for one. */
function signedIn(u: UpstreamInfo): boolean {
  return u.auth?.state === 'signed-in' && u.status !== 'needs-sign-in';
}

/**
 * Browse (issue 16): the MCP Registry's servers through the hub's `registry.*` methods — search with
 * paging, one entry's detail page, the form for one of its packages or remotes, and adding it.
 * The hub does the reading of server.json; this only keeps what the window shows.
 */
import type { ApiFailure, Backend, Res } from './api.js';
import type { RegistryFormField, RegistryOption, RegistryServer } from '../../../shared/api-registry.js';

type Cached = NonNullable<Res<'registry.search'>['cached']>;
export type BrowseDetail = Res<'registry.get'>;
/** An added server's installed npm package or bundle and the registry's latest version of it. */
export type InstalledPackage = Res<'registry.installed'>;
/** One published version of an entry (the detail page's version picker). */
export type EntryVersion = Res<'registry.versions'>['versions'][number];

/** The filled form of one package or remote: values by field key, and the problem the hub named. */
export class RegistryFormState {
  /** Public $state because the form binds it. */
  values = $state<Record<string, string>>({});
  #problem = $state<ApiFailure | undefined>();
  #saving = $state(false);

  constructor(
    readonly option: RegistryOption,
    readonly fields: RegistryFormField[],
  ) {
    // Defaults filled in, as the registry entry declares them; the user sees exactly what will be sent.
    this.values = Object.fromEntries(fields.map((f) => [f.key, f.default ?? '']));
  }

  get problem(): ApiFailure | undefined {
    return this.#problem;
  }
  get saving(): boolean {
    return this.#saving;
  }
  /** The field key the hub's last refusal named (`values.<key>`), if any. */
  get problemKey(): string | undefined {
    const field = this.#problem?.field;
    return field?.startsWith('values.') ? field.slice('values.'.length) : undefined;
  }

  setProblem(problem: ApiFailure | undefined): void {
    this.#problem = problem;
  }
  setSaving(saving: boolean): void {
    this.#saving = saving;
  }
}

export class BrowseState {
  #query = $state('');
  #servers = $state<RegistryServer[]>([]);
  #nextCursor = $state<string | undefined>();
  #skipped = $state(0);
  #cached = $state<Cached | undefined>();
  #loading = $state(false);
  #searched = $state(false);
  #error = $state<ApiFailure | undefined>();
  #detail = $state<BrowseDetail | undefined>();
  /** The open entry's published versions, for the picker (empty until asked, or when it could not be). */
  #versions = $state<{ name: string; list: EntryVersion[] }>({ name: '', list: [] });
  #detailLoading = $state(false);
  #detailError = $state<ApiFailure | undefined>();
  #form = $state<RegistryFormState | undefined>();
  #formLoading = $state(false);
  /** The option whose form is loading (a bundle's is downloaded first, which the page says). */
  #formOption = $state<RegistryOption | undefined>();
  #formError = $state<ApiFailure | undefined>();
  /** Installed packages of the added servers the open entry runs, by server id. */
  #installed = $state<Record<string, InstalledPackage>>({});
  #updating = $state<string | undefined>();
  #updateError = $state<ApiFailure | undefined>();
  /** The id of the server going back to its previous version, while it is. */
  #goingBack = $state<string | undefined>();
  /** What the last Update or Go back did, in plain words (shown in the page's status place). */
  #outcome = $state<string | undefined>();
  /** Bumped on every new search so a slow answer to an older one is dropped. */
  #searchSeq = 0;
  readonly #backend: Backend;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get query(): string {
    return this.#query;
  }
  get servers(): RegistryServer[] {
    return this.#servers;
  }
  get hasMore(): boolean {
    return this.#nextCursor !== undefined;
  }
  /** Entries of the pages shown that did not follow the registry's schema and were left out. */
  get skipped(): number {
    return this.#skipped;
  }
  /** Set when the registry could not be reached and an earlier answer is shown. */
  get cached(): Cached | undefined {
    return this.#cached ?? this.#detail?.cached;
  }
  get loading(): boolean {
    return this.#loading;
  }
  /** True once a search has been answered (so "nothing found" can be told apart from "not asked yet"). */
  get searched(): boolean {
    return this.#searched;
  }
  get error(): ApiFailure | undefined {
    return this.#error;
  }
  get detail(): BrowseDetail | undefined {
    return this.#detail;
  }
  /** The open entry's published versions, newest first (empty while unknown). */
  get versions(): EntryVersion[] {
    return this.#detail && this.#versions.name === this.#detail.server.name ? this.#versions.list : [];
  }
  get detailLoading(): boolean {
    return this.#detailLoading;
  }
  get detailError(): ApiFailure | undefined {
    return this.#detailError;
  }
  get form(): RegistryFormState | undefined {
    return this.#form;
  }
  get formLoading(): boolean {
    return this.#formLoading;
  }
  /** The option whose form is being loaded, while it is. */
  get formOption(): RegistryOption | undefined {
    return this.#formLoading ? this.#formOption : undefined;
  }
  get formError(): ApiFailure | undefined {
    return this.#formError;
  }
  /** What the added server `id` runs, once asked (whether the npm registry has a newer version). */
  installedPackage(id: string): InstalledPackage | undefined {
    return this.#installed[id];
  }
  /** The id of the server being updated, while it is. */
  get updating(): string | undefined {
    return this.#updating;
  }
  get updateError(): ApiFailure | undefined {
    return this.#updateError;
  }
  /** The id of the server going back to its previous version, while it is. */
  get goingBack(): string | undefined {
    return this.#goingBack;
  }
  get outcome(): string | undefined {
    return this.#outcome;
  }

  /** The first page of servers with every word of `query` in their name, title or description (all servers when empty). */
  async search(query: string): Promise<void> {
    const seq = ++this.#searchSeq;
    this.#query = query;
    this.#loading = true;
    const trimmed = query.trim();
    const result = await this.#backend.call('registry.search', trimmed ? { query: trimmed } : {});
    if (seq !== this.#searchSeq) return;
    this.#loading = false;
    this.#searched = true;
    if (!result.ok) {
      this.#error = result;
      this.#servers = [];
      this.#nextCursor = undefined;
      this.#cached = undefined;
      return;
    }
    this.#error = undefined;
    this.#servers = onePerName([], result.value.servers);
    this.#nextCursor = result.value.nextCursor;
    this.#skipped = result.value.skipped;
    this.#cached = result.value.cached;
  }

  /** Appends the next page of the current search. */
  async more(): Promise<void> {
    const cursor = this.#nextCursor;
    if (cursor === undefined || this.#loading) return;
    const seq = this.#searchSeq;
    this.#loading = true;
    const trimmed = this.#query.trim();
    const result = await this.#backend.call('registry.search', { ...(trimmed ? { query: trimmed } : {}), cursor });
    if (seq !== this.#searchSeq) return;
    this.#loading = false;
    if (!result.ok) {
      this.#error = result;
      return;
    }
    this.#error = undefined;
    this.#servers = onePerName(this.#servers, result.value.servers);
    this.#nextCursor = result.value.nextCursor;
    this.#skipped += result.value.skipped;
    this.#cached = result.value.cached ?? this.#cached;
  }

  /** Opens one entry's detail page (its latest version unless `version` is given). */
  async open(name: string, version?: string): Promise<void> {
    this.#form = undefined;
    this.#formError = undefined;
    this.#detailLoading = true;
    this.#detailError = undefined;
    const result = await this.#backend.call('registry.get', { name, ...(version ? { version } : {}) });
    this.#detailLoading = false;
    if (result.ok) {
      this.#detail = result.value;
      void this.#checkInstalled(result.value);
      if (this.#versions.name !== name) void this.#loadVersions(name);
    } else {
      this.#detail = undefined;
      this.#detailError = result;
    }
  }

  /** Asks for the entry's versions; without an answer there is no picker (the latest is added). */
  async #loadVersions(name: string): Promise<void> {
    this.#versions = { name, list: [] };
    const result = await this.#backend.call('registry.versions', { name }).catch(() => undefined);
    if (result?.ok && this.#versions.name === name) this.#versions = { name, list: result.value.versions };
  }

  /** Asks, for each added server that runs one of the entry's npm packages, whether a newer version exists. */
  async #checkInstalled(detail: BrowseDetail): Promise<void> {
    const ids = detail.options.flatMap((o) => (o.installed ?? []).map((i) => i.id));
    for (const id of ids) {
      const result = await this.#backend.call('registry.installed', { id });
      if (result.ok) this.#installed = { ...this.#installed, [id]: result.value };
    }
  }

  /** Installs the registry's newer version for the added server `id` and switches it over. */
  async update(id: string): Promise<boolean> {
    if (this.#updating || this.#goingBack) return false;
    this.#updating = id;
    this.#updateError = undefined;
    this.#outcome = undefined;
    const result = await this.#backend.call('registry.update', { id });
    this.#updating = undefined;
    if (!result.ok) {
      this.#updateError = result;
      return false;
    }
    const { name, version, previous, updated } = result.value;
    this.#outcome = updated ? `${id} was updated to ${name} ${version} from ${previous}.` : `${id} already runs ${name} ${version}.`;
    const { [id]: _old, ...rest } = this.#installed;
    this.#installed = rest;
    const detail = this.#detail;
    if (detail) await this.open(detail.server.name, detail.server.version);
    return true;
  }

  /** Switches the added server `id` back to the version it ran before its last Update. */
  async goBack(id: string): Promise<boolean> {
    if (this.#updating || this.#goingBack) return false;
    this.#goingBack = id;
    this.#updateError = undefined;
    this.#outcome = undefined;
    const result = await this.#backend.call('registry.goBack', { id });
    this.#goingBack = undefined;
    if (!result.ok) {
      this.#updateError = result;
      // Whether it can still go back (another window may have gone back meanwhile): show what is true.
      const now = await this.#backend.call('registry.installed', { id });
      if (now.ok) this.#installed = { ...this.#installed, [id]: now.value };
      return false;
    }
    const { version, previous, name } = result.value;
    this.#outcome = `${id} went back to ${name} ${version} from ${previous}. Its settings are kept.`;
    const { [id]: _old, ...rest } = this.#installed;
    this.#installed = rest;
    const detail = this.#detail;
    if (detail) await this.open(detail.server.name, detail.server.version);
    return true;
  }

  /** Back to the list. */
  close(): void {
    this.#outcome = undefined;
    this.#detail = undefined;
    this.#detailError = undefined;
    this.#form = undefined;
    this.#formError = undefined;
  }

  /** Loads the form for one way to run the open entry (for a bundle, after downloading and installing it). */
  async choose(option: RegistryOption): Promise<void> {
    const detail = this.#detail;
    if (!detail) return;
    this.#formLoading = true;
    this.#formOption = option;
    this.#formError = undefined;
    const { name, version } = detail.server;
    const result = await this.#backend.call('registry.form', { name, version, ...optionRef(option) });
    this.#formLoading = false;
    if (result.ok) this.#form = new RegistryFormState(result.value.option, result.value.fields);
    else this.#formError = result;
  }

  /** Back from the form to the detail page. */
  cancelForm(): void {
    this.#form = undefined;
    this.#formError = undefined;
  }

  /** Adds the server from the filled form; returns its id, or undefined with the problem set on the form. */
  async add(): Promise<string | undefined> {
    const detail = this.#detail;
    const form = this.#form;
    if (!detail || !form || form.saving) return undefined;
    form.setSaving(true);
    form.setProblem(undefined);
    const { name, version } = detail.server;
    const result = await this.#backend.call('registry.add', { name, version, ...optionRef(form.option), values: { ...form.values } });
    form.setSaving(false);
    if (!result.ok) {
      form.setProblem(result);
      return undefined;
    }
    this.close();
    return result.value.id;
  }
}

/** What a server is called in the list: its title, else the last part of its name (as the hub names its id). */
export function displayName(server: RegistryServer): string {
  return server.title ?? server.name.split('/').pop() ?? server.name;
}

/**
 * The servers shown, then those of a new page that are not shown yet, each once (the list is keyed by
 * name; a registry that ignores `version=latest` lists a server once per version).
 */
function onePerName(shown: RegistryServer[], page: RegistryServer[]): RegistryServer[] {
  const listed: Record<string, true> = Object.fromEntries(shown.map((s) => [s.name, true]));
  const added: RegistryServer[] = [];
  for (const server of page) {
    if (Object.hasOwn(listed, server.name)) continue;
    listed[server.name] = true;
    added.push(server);
  }
  return [...shown, ...added];
}

function optionRef(option: RegistryOption): { package: number } | { remote: number } {
  return option.kind === 'package' ? { package: option.index } : { remote: option.index };
}

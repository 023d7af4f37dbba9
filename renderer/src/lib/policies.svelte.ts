/**
 * Per-tool policies (`policies.*`) and tools withheld by pinning (`pins.*`). Each tool's effective
 * values come from `policies.effective`, so the view can say whether a value is inherited or set here.
 * Errors are kept per tool and per field, so each shows next to the control that caused it.
 */
import type { ApiFailure, Backend } from './api.js';
import { notOffered } from './availability.js';
import { coalesced } from './refresh-loop.js';
import type { EffectivePolicy, GlobalPolicyDefaults, PendingPin, Policies, ToolPolicy } from '../../../shared/policy.js';

/** The fields of a tool's editor; a hub error naming one of them shows there, anything else under 'form'. */
export const TOOL_FIELDS = ['hidden', 'description', 'hiddenParams', 'action', 'thresholdTokens', 'previewTokens', 'cacheTtlSeconds'] as const;
export type ToolField = (typeof TOOL_FIELDS)[number] | 'form';

/** Maps a hub field path (`policy.hiddenParams.path`, `tools.fs.read.thresholdTokens`) to an editor field. */
export function toolFieldOf(path: string | undefined): ToolField {
  if (!path) return 'form';
  const parts = path.split('.');
  for (const name of TOOL_FIELDS) if (parts.includes(name)) return name;
  if (parts.includes('paramOverrides')) return 'hiddenParams';
  return 'form';
}

const key = (server: string, tool: string) => `${server}\u0000${tool}`;

/** One edit of a tool's policy: some fields (`undefined` removes one), or `null` to clear them all. */
type Edit = Partial<ToolPolicy> | null;

/** The policy after an edit. */
function applyEdit(policy: ToolPolicy, edit: Edit): ToolPolicy {
  if (edit === null) return {};
  const next: Record<string, unknown> = { ...policy };
  for (const [name, value] of Object.entries(edit)) {
    if (value === undefined) delete next[name];
    else next[name] = value;
  }
  return next as ToolPolicy;
}

/**
 * The hub's refusal without the field path it starts with ("tools.fs.read.hiddenParams.x: the tool has no
 * parameter…"): the editor shows it next to that field, where the path only gets in the way.
 */
export function withoutFieldPath(failure: ApiFailure): ApiFailure {
  const prefix = failure.field ? `${failure.field}: ` : undefined;
  if (!prefix || !failure.message.startsWith(prefix)) return failure;
  const rest = failure.message.slice(prefix.length);
  const sentence = rest.charAt(0).toUpperCase() + rest.slice(1);
  return { ...failure, message: /[.!?]$/.test(sentence) ? sentence : `${sentence}.` };
}

export class PoliciesState {
  #available = $state(true);
  #policies = $state<Policies>({ servers: {}, tools: {} });
  #defaults = $state<GlobalPolicyDefaults | undefined>();
  #loadError = $state<ApiFailure | undefined>();
  #pending = $state<PendingPin[]>([]);
  #pinsAvailable = $state(true);
  #pinErrors = $state<Record<string, ApiFailure | undefined>>({});
  #effective = $state<Record<string, EffectivePolicy | undefined>>({});
  /** `at`: edits made up to then do not clear the error when they save; only a later edit does. */
  #errors = $state<Record<string, { field: ToolField; failure: ApiFailure; at: number } | undefined>>({});
  /** Edits of each tool not yet answered, oldest first; the view shows them on top of what the hub holds. */
  #queued = $state<Record<string, Edit[]>>({});
  /**
   * Per tool, the last write in line, resolving to the policy the hub holds after it (undefined: as in
   * `#policies`). `policies.setTool` replaces the whole policy, so each write waits for the one before
   * and is built from it: two quick edits both land.
   */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping: nothing shown reads it
  readonly #lines = new Map<string, Promise<ToolPolicy | undefined>>();
  #edits = 0;
  #defaultsError = $state<ApiFailure | undefined>();
  readonly #backend: Backend;

  readonly refresh = coalesced(async () => {
    const [got, pins] = await Promise.all([this.#backend.call('policies.get', {}), this.#backend.call('pins.pending', {})]);
    if (got.ok) {
      this.#available = true;
      this.#policies = got.value.policies;
      this.#defaults = got.value.defaults;
      this.#loadError = undefined;
    } else {
      this.#available = !notOffered(got);
      this.#loadError = this.#available ? got : undefined;
    }
    if (pins.ok) {
      this.#pinsAvailable = true;
      this.#pending = pins.value;
    } else {
      this.#pinsAvailable = !notOffered(pins);
      this.#pending = [];
    }
    // Effective values depend on server policies and defaults too: reload the ones open.
    await Promise.all(
      Object.keys(this.#effective).map((k) => {
        const [server, tool] = k.split('\u0000');
        return this.loadEffective(server, tool);
      }),
    );
  });

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  /** False once the hub said it has no policies yet. */
  get available(): boolean {
    return this.#available;
  }
  get pinsAvailable(): boolean {
    return this.#pinsAvailable;
  }
  get loadError(): ApiFailure | undefined {
    return this.#loadError;
  }
  get defaults(): GlobalPolicyDefaults | undefined {
    return this.#defaults;
  }
  get pending(): PendingPin[] {
    return this.#pending;
  }
  pinError(server: string, tool: string): ApiFailure | undefined {
    return this.#pinErrors[key(server, tool)];
  }
  /** The tool's own policy (what is set here, not inherited), with the edits still being saved. */
  toolPolicy(server: string, tool: string): ToolPolicy {
    return (this.#queued[key(server, tool)] ?? []).reduce(applyEdit, this.#held(server, tool));
  }
  /** What the hub holds for the tool, as last heard. */
  #held(server: string, tool: string): ToolPolicy {
    return this.#policies.tools[server]?.[tool] ?? {};
  }
  effective(server: string, tool: string): EffectivePolicy | undefined {
    return this.#effective[key(server, tool)];
  }
  errorAt(server: string, tool: string, field: ToolField): ApiFailure | undefined {
    const e = this.#errors[key(server, tool)];
    return e && e.field === field ? e.failure : undefined;
  }
  isSaving(server: string, tool: string): boolean {
    return (this.#queued[key(server, tool)]?.length ?? 0) > 0;
  }
  isHidden(server: string, tool: string): boolean {
    return this.toolPolicy(server, tool).hidden === true;
  }

  /** Loads once and follows config and catalog changes; returns the stop. */
  start(): () => void {
    const stop = this.#backend.subscribe((e) => {
      if (e.type === 'config.changed' || e.type === 'catalog.changed' || e.type === 'tool.withheld' || e.type === 'tool.approved')
        void this.refresh();
    });
    void this.refresh();
    return stop;
  }

  async loadEffective(server: string, tool: string): Promise<void> {
    const result = await this.#backend.call('policies.effective', { server, tool });
    const k = key(server, tool);
    if (result.ok) this.#effective = { ...this.#effective, [k]: result.value };
    else this.#errors = { ...this.#errors, [k]: { field: 'form', failure: result, at: this.#edits } };
  }

  /**
   * Changes some fields of a tool's policy (`undefined` removes a field, so it is inherited again).
   * `field` is the control that made the change, where an error without a field is shown.
   */
  update(server: string, tool: string, change: Partial<ToolPolicy>, field: ToolField): Promise<boolean> {
    return this.#enqueue(server, tool, change, field);
  }

  /** Clears everything set for the tool: it follows its server and the defaults again. */
  reset(server: string, tool: string): Promise<boolean> {
    return this.#enqueue(server, tool, null, 'form');
  }

  /** Puts an edit in the tool's line of writes; answers whether the hub took it. */
  #enqueue(server: string, tool: string, edit: Edit, field: ToolField): Promise<boolean> {
    const k = key(server, tool);
    const seq = ++this.#edits;
    this.#queued = { ...this.#queued, [k]: [...(this.#queued[k] ?? []), edit] };
    const written = (this.#lines.get(k) ?? Promise.resolve(undefined)).then((held) => this.#write(server, tool, edit, field, seq, held));
    const line = written.then((w) => w.held);
    this.#lines.set(k, line);
    void line.then(() => {
      if (this.#lines.get(k) === line) this.#lines.delete(k);
    });
    return written.then((w) => w.ok);
  }

  /** Sends one edit, built on what the hub holds after the write before it (`held`). */
  async #write(
    server: string,
    tool: string,
    edit: Edit,
    field: ToolField,
    seq: number,
    held: ToolPolicy | undefined,
  ): Promise<{ ok: boolean; held: ToolPolicy | undefined }> {
    const k = key(server, tool);
    const policy = applyEdit(held ?? this.#held(server, tool), edit);
    const result =
      edit === null
        ? await this.#backend.call('policies.resetTool', { server, tool })
        : await this.#backend.call('policies.setTool', { server, tool, policy });
    // The edits run in order, so the one answered is the oldest still queued.
    this.#queued = { ...this.#queued, [k]: (this.#queued[k] ?? []).slice(1) };
    if (!result.ok) {
      const named = result.field ? toolFieldOf(result.field) : field;
      const failure = withoutFieldPath(result);
      this.#errors = { ...this.#errors, [k]: { field: named === 'form' ? field : named, failure, at: this.#edits } };
      return { ok: false, held };
    }
    // An error stays until an edit made after it saves: edits already waiting then do not hide it.
    const shown = this.#errors[k];
    if (shown && shown.at < seq) this.#errors = { ...this.#errors, [k]: undefined };
    this.#effective = { ...this.#effective, [k]: result.value };
    const tools = { ...(this.#policies.tools[server] ?? {}) };
    if (Object.keys(policy).length === 0) delete tools[tool];
    else tools[tool] = policy;
    this.#policies = { ...this.#policies, tools: { ...this.#policies.tools, [server]: tools } };
    return { ok: true, held: policy };
  }

  get defaultsError(): ApiFailure | undefined {
    return this.#defaultsError;
  }

  /** Changes app-wide switches (dispatch only, the direct-tool cap, pinning). */
  async setDefaults(patch: Partial<GlobalPolicyDefaults>): Promise<boolean> {
    const result = await this.#backend.call('policies.setDefaults', patch);
    this.#defaultsError = result.ok ? undefined : result;
    if (result.ok) this.#defaults = result.value;
    return result.ok;
  }

  /** Lets a withheld tool through with its new definition. */
  async approve(server: string, tool: string): Promise<boolean> {
    const result = await this.#backend.call('pins.approve', { server, tool });
    const k = key(server, tool);
    this.#pinErrors = { ...this.#pinErrors, [k]: result.ok ? undefined : result };
    if (result.ok) this.#pending = this.#pending.filter((p) => !(p.server === server && p.tool === tool));
    return result.ok;
  }
}

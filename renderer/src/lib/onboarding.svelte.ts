/**
 * First-run setup: decides whether this is the first time (no servers, no client connected, not
 * dismissed before), finds the user's clients and the servers they already have, and — after one
 * confirm that shows each exact entry — imports them and connects the clients through Spillway.
 */
import type { ApiFailure, Backend, Res } from './api.js';
import type { ClientIdName, ClientInfo } from '../../../shared/api-clients.js';
import { canConnect, foundServers, planSetup, type ClientStep, type FoundServer, type ImportCandidate } from './onboarding-plan.js';

/** Where the "don't show again" flag lives: the browser's localStorage in the app. */
export interface FlagStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export const ONBOARDING_DONE_KEY = 'spillway.onboarding.done';

export type OnboardingPhase = 'checking' | 'hidden' | 'choose' | 'confirm' | 'running' | 'done';

export interface StepPreview {
  step: ClientStep;
  client: ClientInfo;
  preview?: Res<'clients.preview'>;
  error?: ApiFailure;
}

export interface StepResult {
  client: ClientInfo;
  status: 'waiting' | 'working' | 'ok' | 'error';
  imported: string[];
  skipped: string[];
  /** The file written, when one was. */
  file?: string;
  restartHint?: string;
  error?: ApiFailure;
}

/** What the Activity view shows while it waits for the first call after setup. */
export interface SetupSummary {
  connected: string[];
  hints: string[];
  /** The servers setup put in Spillway, to suggest a first call that uses one. */
  servers: string[];
}

/** `list` with `item` added (once) or removed. */
function toggled(list: readonly string[], item: string, on: boolean): string[] {
  return on ? [...new Set([...list, item])] : list.filter((x) => x !== item);
}

/** The picks as planSetup takes them. */
function choice(clients: readonly string[], servers: readonly string[], replace: boolean): Parameters<typeof planSetup>[2] {
  return { clients: new Set(clients), servers: new Set(servers), replace };
}

export class OnboardingState {
  #phase = $state<OnboardingPhase>('checking');
  #clients = $state<ClientInfo[]>([]);
  #servers = $state<FoundServer[]>([]);
  #candidateErrors = $state<Record<string, ApiFailure | undefined>>({});
  #pickedClients = $state<string[]>([]);
  #pickedServers = $state<string[]>([]);
  #previews = $state<StepPreview[]>([]);
  #results = $state<StepResult[]>([]);
  #summary = $state<SetupSummary | undefined>();
  /** Move the client's servers out of its file so it reaches them through Spillway only. */
  replace = $state(true);
  /** Kept when the user skips; finishing always keeps it. Off until asked for: Skip alone means "not now" (issue 14, item 11). */
  dontShowAgain = $state(false);
  readonly #backend: Backend;
  readonly #storage: FlagStorage | undefined;

  constructor(backend: Backend, storage?: FlagStorage) {
    this.#backend = backend;
    this.#storage = storage;
  }

  get phase(): OnboardingPhase {
    return this.#phase;
  }
  get visible(): boolean {
    return this.#phase !== 'checking' && this.#phase !== 'hidden';
  }
  /** Installed clients, the ones setup can act on first. */
  get clients(): ClientInfo[] {
    return this.#clients;
  }
  get servers(): FoundServer[] {
    return this.#servers;
  }
  candidateError(id: string): ApiFailure | undefined {
    return this.#candidateErrors[id];
  }
  isClientPicked(id: string): boolean {
    return this.#pickedClients.includes(id);
  }
  isServerPicked(key: string): boolean {
    return this.#pickedServers.includes(key);
  }
  get previews(): StepPreview[] {
    return this.#previews;
  }
  get results(): StepResult[] {
    return this.#results;
  }
  get progress(): { done: number; total: number } {
    return { done: this.#results.filter((r) => r.status === 'ok' || r.status === 'error').length, total: this.#results.length };
  }
  get summary(): SetupSummary | undefined {
    return this.#summary;
  }
  /** After the run: whether any step worked (setup is remembered as done only then). */
  get anySucceeded(): boolean {
    return this.#results.some((r) => r.status === 'ok');
  }
  /**
   * Why Connect cannot be pressed: every change to a file was refused in the preview (a hub on port 0,
   * unreadable files), so running would only fail again. Undefined when there is something to do.
   */
  get blocked(): string | undefined {
    const p = this.#previews;
    if (p.length === 0 || !p.every((x) => x.error)) return undefined;
    return 'None of these changes can be made right now (the reason is under each app). Fix that first, then press Back and Review changes again.';
  }
  /** The servers of this client that stay in it, with the reason (they use a variable only the app fills in). */
  keptIn(id: string): Array<{ name: string; reason: string }> {
    return this.#servers.flatMap((s) => {
      const here = s.in.find((x) => x.client === id);
      return s.clientOnly && here ? [{ name: here.name, reason: s.clientOnly }] : [];
    });
  }
  /** The calls the current choice leads to. */
  get plan(): ClientStep[] {
    return planSetup(this.#clients, this.#servers, choice(this.#pickedClients, this.#pickedServers, this.replace));
  }

  #flagged(): boolean {
    try {
      return this.#storage?.getItem(ONBOARDING_DONE_KEY) === '1';
    } catch {
      return false;
    }
  }
  #flag(): void {
    try {
      this.#storage?.setItem(ONBOARDING_DONE_KEY, '1');
    } catch {
      // A browser that refuses storage just shows the welcome again next time.
    }
  }

  /**
   * Decides whether to show setup: not dismissed before, no server configured, no client connected,
   * and at least one installed client to set up. Anything the hub cannot answer means "not now".
   * `again` (the user asked for setup from the Clients view) skips the first-run conditions: only an
   * installed client is needed. Resolves with whether setup is showing.
   */
  async start(options: { again?: boolean } = {}): Promise<boolean> {
    const again = options.again === true;
    if (!again && this.#flagged()) {
      this.#phase = 'hidden';
      return false;
    }
    if (again) {
      this.#candidateErrors = {};
      this.#previews = [];
      this.#results = [];
    }
    const [upstreams, clients] = await Promise.all([this.#backend.call('upstreams.list', {}), this.#backend.call('clients.list', {})]);
    const firstRun = upstreams.ok && clients.ok && upstreams.value.length === 0 && !clients.value.some((c) => c.state === 'current');
    if (!clients.ok || (!again && !firstRun)) {
      this.#phase = 'hidden';
      return false;
    }
    const installed = clients.value.filter((c) => c.installed || c.configPresent);
    if (!installed.some(canConnect)) {
      this.#phase = 'hidden';
      return false;
    }
    const found = await Promise.all(
      installed.map(async (c) => {
        if (c.state === 'error' || c.servers === 0) return { client: c.id, candidates: [] as ImportCandidate[] };
        const r = await this.#backend.call('clients.importCandidates', { id: c.id });
        if (!r.ok) this.#candidateErrors = { ...this.#candidateErrors, [c.id]: r };
        return { client: c.id, candidates: r.ok ? r.value : [] };
      }),
    );
    this.#clients = installed;
    this.#servers = foundServers(found);
    // Everything sensible is picked: each client that can be connected, each server not yet in Spillway
    // that Spillway can run.
    this.#pickedClients = installed.filter(canConnect).map((c) => c.id);
    this.#pickedServers = this.#servers.filter((s) => !s.alreadyImported && !s.clientOnly).map((s) => s.key);
    this.#phase = 'choose';
    return true;
  }

  pickClient(id: string, on: boolean): void {
    this.#pickedClients = toggled(this.#pickedClients, id, on);
  }
  pickServer(key: string, on: boolean): void {
    this.#pickedServers = toggled(this.#pickedServers, key, on);
  }

  #info(id: ClientIdName): ClientInfo {
    return this.#clients.find((c) => c.id === id)!;
  }

  /** The confirm step: the exact entry each written file gets, from clients.preview. Writes nothing. */
  async review(): Promise<void> {
    const steps = this.plan;
    this.#previews = await Promise.all(
      steps.map(async (step): Promise<StepPreview> => {
        const client = this.#info(step.client);
        if (!step.writesFile) return { step, client };
        const r = await this.#backend.call('clients.preview', step.replace ? { id: step.client, replace: step.names } : { id: step.client });
        return r.ok ? { step, client, preview: r.value } : { step, client, error: r };
      }),
    );
    this.#phase = 'confirm';
  }

  back(): void {
    this.#phase = 'choose';
  }

  /**
   * Runs the steps one client at a time; a failure stays on its client and the others go on. Setup is
   * remembered as done only when a step worked: when all failed it comes back at the next start.
   */
  async run(): Promise<void> {
    if (this.blocked) return;
    const steps = this.#previews.map((p) => p.step);
    this.#results = steps.map((s) => ({ client: this.#info(s.client), status: 'waiting', imported: [], skipped: [] }));
    this.#phase = 'running';
    for (let i = 0; i < steps.length; i++) {
      this.#update(i, { status: 'working' });
      this.#update(i, await this.#runStep(steps[i]));
    }
    const ok = this.#results.filter((r) => r.status === 'ok' && r.file !== undefined);
    this.#summary = this.anySucceeded
      ? {
          connected: ok.map((r) => r.client.displayName),
          hints: ok.flatMap((r) => (r.restartHint ? [r.restartHint] : [])),
          servers: this.#results.flatMap((r) => r.imported).filter((s, i, all) => all.indexOf(s) === i),
        }
      : undefined;
    if (this.anySucceeded) this.#flag();
    this.#phase = 'done';
  }

  async #runStep(step: ClientStep): Promise<Partial<StepResult>> {
    const out: Partial<StepResult> = { imported: [], skipped: [] };
    if (step.names.length > 0) {
      const r = await this.#backend.call('clients.import', { id: step.client, names: step.names, replace: step.replace });
      if (!r.ok) return { status: 'error', error: r };
      out.imported = r.value.imported;
      out.skipped = r.value.skipped;
      if (r.value.change) {
        out.file = r.value.change.file;
        out.restartHint = r.value.change.restartHint;
      }
    }
    if (step.connect) {
      const r = await this.#backend.call('clients.connect', { id: step.client });
      if (!r.ok) return { ...out, status: 'error', error: r };
      out.file = r.value.file;
      out.restartHint = r.value.restartHint;
    }
    return { ...out, status: 'ok' };
  }

  #update(i: number, patch: Partial<StepResult>): void {
    this.#results = this.#results.map((r, j) => (j === i ? { ...r, ...patch } : r));
  }

  /** Closes setup without doing anything; remembered when "don't show again" is on. */
  skip(): void {
    if (this.dontShowAgain) this.#flag();
    this.#phase = 'hidden';
  }

  /** Closes the results (remembered as done when a step worked). */
  close(): void {
    this.#phase = 'hidden';
  }
}

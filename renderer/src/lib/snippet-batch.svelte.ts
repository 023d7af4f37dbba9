/**
 * The servers a pasted snippet holds, until each is added. "Add all" adds those left and drops each one
 * added, so pressing it again retries only the ones that failed (never adds a second copy). A failed one
 * opens in the form with its problem at the field, where the user can fix it.
 */
import { ServerDraft, type DraftProblem, type SnippetServer } from './server-draft.svelte.js';
import type { ServersState } from './servers.svelte.js';

/** A server of the snippet that was not added, and why (at the form field it concerns). */
export interface SnippetFailure {
  name: string;
  problem: DraftProblem;
}

export class SnippetBatch {
  readonly #draft: ServerDraft;
  readonly #servers: Pick<ServersState, 'save'>;
  /** Servers of the snippet not added yet. */
  // Raw (never changed in place, only replaced) so a server is the same object in #left and #shown.
  #left = $state.raw<SnippetServer[]>([]);
  /** The one of them the form shows (its edits are what gets added for it). */
  #shown = $state.raw<SnippetServer | undefined>();
  #failures = $state.raw<SnippetFailure[]>([]);
  #added = $state.raw<string[]>([]);
  #adding = $state(false);

  constructor(draft: ServerDraft, servers: Pick<ServersState, 'save'>) {
    this.#draft = draft;
    this.#servers = servers;
  }

  /** Servers of the snippet not added yet. */
  get left(): SnippetServer[] {
    return this.#left;
  }
  get adding(): boolean {
    return this.#adding;
  }
  /** Names added by the last Add all. */
  get added(): string[] {
    return this.#added;
  }
  get failures(): SnippetFailure[] {
    return this.#failures;
  }
  /** The name of the snippet's server the form shows, if it shows one. */
  get shownName(): string | undefined {
    return this.#shown?.name;
  }

  /** Reads a pasted snippet into the form (the first server) and keeps the rest for Add all. */
  paste(text: string): void {
    const found = this.#draft.paste(text) ?? [];
    this.#left = found;
    this.#shown = found[0];
    this.#failures = [];
    this.#added = [];
  }

  /** Shows one server of the snippet in the form, with its problem from Add all at the field. */
  open(name: string): void {
    const server = this.#left.find((s) => s.name === name);
    if (!server) return;
    // The one already shown keeps what the user typed into the form.
    if (server !== this.#shown) this.#draft.fill(server);
    this.#shown = server;
    this.#draft.setProblem(this.#failures.find((f) => f.name === name)?.problem);
  }

  /**
   * Adds every server left; the one in the form as edited there. Returns true when all were added.
   * Otherwise the first that failed is opened in the form.
   */
  async addAll(): Promise<boolean> {
    if (this.#adding) return false;
    this.#adding = true;
    this.#failures = [];
    this.#added = [];
    try {
      for (const server of [...this.#left]) {
        const shown = server === this.#shown;
        const one = shown ? this.#draft : new ServerDraft();
        if (!shown) one.fill(server);
        if (await this.#servers.save(one)) {
          this.#left = this.#left.filter((s) => s !== server);
          this.#added = [...this.#added, server.name];
        } else {
          this.#failures = [...this.#failures, { name: server.name, problem: one.problem ?? { field: 'form', message: 'It was not added.' } }];
        }
      }
    } finally {
      this.#adding = false;
    }
    const [failed] = this.#failures;
    if (failed) this.open(failed.name);
    return this.#left.length === 0;
  }

  /**
   * The form's own Add pressed and saved the server it shows: drop it, and open the next one left.
   * Returns true when none is left (the form can close).
   */
  saved(): boolean {
    this.#added = this.#shown ? [this.#shown.name] : [];
    if (this.#shown) this.#left = this.#left.filter((s) => s !== this.#shown);
    this.#shown = undefined;
    this.#failures = this.#failures.filter((f) => this.#left.some((s) => s.name === f.name));
    const [next] = this.#left;
    if (!next) return true;
    this.open(next.name);
    return false;
  }
}

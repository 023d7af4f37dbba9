export interface CompressionBudgetOptions {
  /** Milliseconds; the clock is injected so tests and the hub share one notion of time. */
  now: () => number;
  /** A call within this long of the same call's previous one escalates. Default 2 minutes. */
  windowMs?: number;
  /** Each escalation multiplies the budget by this. Default 2. */
  factor?: number;
  /** Escalation never goes past this (a base above it is kept). Default 16,000 tokens. */
  maxTokens?: number;
  /** Tools remembered; the least recently called are forgotten first. Default 1,000. */
  maxTools?: number;
}

export interface BudgetGrant {
  maxOutputTokens: number;
  /** 1 for a first call, 2 for a repeat within the window, and so on. */
  attempt: number;
}

interface Streak {
  attempt: number;
  last: number;
}

/**
 * Retry escalation: a model that makes the same call again soon after a compressed result probably did
 * not find what it needed, so each repeat within the window gets a larger output budget. A pause longer
 * than the window starts over. What "the same call" is, is the caller's key (the hub's: the client
 * session, the tool and its arguments): other arguments or another app's call are not retries.
 */
export class CompressionBudget {
  readonly #now: () => number;
  readonly #windowMs: number;
  readonly #factor: number;
  readonly #maxTokens: number;
  readonly #maxTools: number;
  /** Insertion order is recency order: a call re-inserts its tool. */
  readonly #streaks = new Map<string, Streak>();

  constructor(options: CompressionBudgetOptions) {
    this.#now = options.now;
    this.#windowMs = options.windowMs ?? 120_000;
    this.#factor = options.factor ?? 2;
    this.#maxTokens = options.maxTokens ?? 16_000;
    this.#maxTools = options.maxTools ?? 1000;
  }

  /** Records a call under `tool` (the streak's key) and returns its output budget. */
  next(tool: string, baseTokens: number): BudgetGrant {
    const now = this.#now();
    const previous = this.#streaks.get(tool);
    const attempt = previous && now - previous.last <= this.#windowMs ? previous.attempt + 1 : 1;
    this.#streaks.delete(tool);
    this.#streaks.set(tool, { attempt, last: now });
    if (this.#streaks.size > this.#maxTools) this.#streaks.delete(this.#streaks.keys().next().value!);
    return { maxOutputTokens: this.budgetFor(baseTokens, attempt), attempt };
  }

  /** The budget of an attempt without recording a call. */
  budgetFor(baseTokens: number, attempt: number): number {
    const base = Math.max(1, Math.round(baseTokens));
    if (attempt <= 1 || base >= this.#maxTokens) return base;
    return Math.min(this.#maxTokens, Math.round(base * this.#factor ** (attempt - 1)));
  }

  /** Forgets one tool's streak, or all of them. */
  reset(tool?: string): void {
    if (tool === undefined) this.#streaks.clear();
    else this.#streaks.delete(tool);
  }
}

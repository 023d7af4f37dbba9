/**
 * Tool pinning (issue 5): trust on first use. The first time Spillway sees a tool it pins a sha256 of its
 * name, description and input schema; if an upstream later changes the description or input schema of a
 * tool of that name, the tool is withheld until the user approves the new definition. Pins are kept by
 * tool name: a tool under a new name (a renamed one too) is new, pinned and listed at once. Pins persist
 * in one JSON file (atomic writes).
 */
import { createHash } from 'node:crypto';
import { readFile, rename } from 'node:fs/promises';
import { AtomicFile } from '../files/atomic-file.js';
import type { PendingPin } from '../../../shared/policy.js';
import { canonicalJson } from './canonical-json.js';
import { schemaDiff } from './schema-diff.js';
import { compareText } from '../../../shared/plain-text.js';

/** The parts of a tool that are pinned. */
export interface PinnableTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

export interface PinChange {
  oldDescription: string | null;
  newDescription: string | null;
  schemaDiff: string[];
}

export type PinCheck = 'new' | 'same' | { changed: PinChange };

interface Pin {
  hash: string;
  description: string | null;
  inputSchema: unknown;
  pinnedAt: string;
}

interface Pending {
  tool: PinnableTool;
  hash: string;
  change: PinChange;
  detectedAt: string;
}

const FILE_VERSION = 1;

export interface ToolPinsOptions {
  file: string;
  now?: () => number;
  log?: (message: string, error?: unknown) => void;
}

/** sha256 of the tool's name, description and input schema (canonical JSON). */
export function toolHash(tool: PinnableTool): string {
  const pinned = { name: tool.name, description: tool.description ?? null, inputSchema: tool.inputSchema ?? null };
  return createHash('sha256').update(canonicalJson(pinned)).digest('hex');
}

function pinKey(serverId: string, toolName: string): string {
  return `${serverId}\u0000${toolName}`;
}

function parsePins(text: string): Map<string, Map<string, Pin>> | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { version, servers } = raw as { version?: unknown; servers?: unknown };
  if (version !== FILE_VERSION || typeof servers !== 'object' || servers === null) return undefined;
  const pins = new Map<string, Map<string, Pin>>();
  for (const [serverId, tools] of Object.entries(servers as Record<string, unknown>)) {
    if (typeof tools !== 'object' || tools === null) return undefined;
    const byTool = new Map<string, Pin>();
    for (const [name, pin] of Object.entries(tools as Record<string, Partial<Pin>>)) {
      if (typeof pin?.hash !== 'string') return undefined;
      byTool.set(name, {
        hash: pin.hash,
        description: typeof pin.description === 'string' ? pin.description : null,
        inputSchema: pin.inputSchema ?? null,
        pinnedAt: typeof pin.pinnedAt === 'string' ? pin.pinnedAt : new Date(0).toISOString(),
      });
    }
    pins.set(serverId, byTool);
  }
  return pins;
}

export class ToolPins {
  readonly file: string;
  readonly #now: () => number;
  readonly #log: (message: string, error?: unknown) => void;
  readonly #pins: Map<string, Map<string, Pin>>;
  readonly #pending = new Map<string, Pending & { serverId: string }>();
  #write: Promise<void> = Promise.resolve();
  readonly #file: AtomicFile;

  private constructor(options: ToolPinsOptions, pins: Map<string, Map<string, Pin>>) {
    this.file = options.file;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? (() => {});
    this.#pins = pins;
    this.#file = new AtomicFile(options.file, () => this.#serialize(), { mode: 0o600 });
  }

  /**
   * Loads the pins file (missing: nothing pinned yet). A file that is not a pins file is moved aside to
   * `<file>.corrupt-<time>` and pinning starts afresh, so one bad write never blocks the hub.
   */
  static async open(options: ToolPinsOptions): Promise<ToolPins> {
    let text: string | undefined;
    try {
      text = await readFile(options.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text === undefined) return new ToolPins(options, new Map());
    const pins = parsePins(text);
    if (pins) return new ToolPins(options, pins);
    const aside = `${options.file}.corrupt-${(options.now ?? Date.now)()}`;
    await rename(options.file, aside);
    options.log?.(`The tool pins file was unreadable; moved it to ${aside} and started afresh.`);
    return new ToolPins(options, new Map());
  }

  /**
   * Compares a tool with its pin. 'new' pins it (saved in the background; see flush), 'same' clears any
   * pending change (the upstream went back), a change withholds the tool until approve().
   */
  check(serverId: string, tool: PinnableTool): PinCheck {
    const key = pinKey(serverId, tool.name);
    const hash = toolHash(tool);
    const pin = this.#pins.get(serverId)?.get(tool.name);
    if (!pin) {
      this.#pin(serverId, tool, hash);
      this.#pending.delete(key);
      void this.#save().catch(() => {});
      return 'new';
    }
    if (pin.hash === hash) {
      this.#pending.delete(key);
      return 'same';
    }
    const change: PinChange = {
      oldDescription: pin.description,
      newDescription: tool.description ?? null,
      schemaDiff: schemaDiff(pin.inputSchema, tool.inputSchema ?? null),
    };
    const known = this.#pending.get(key);
    const detectedAt = known?.hash === hash ? known.detectedAt : new Date(this.#now()).toISOString();
    this.#pending.set(key, { serverId, tool: structuredClone(tool), hash, change, detectedAt });
    return { changed: change };
  }

  /** Checks a server's whole list: the tools that may be listed and the ones withheld. */
  checkAll<T extends PinnableTool>(serverId: string, tools: T[]): { allowed: T[]; withheld: { tool: T; change: PinChange }[] } {
    const allowed: T[] = [];
    const withheld: { tool: T; change: PinChange }[] = [];
    for (const tool of tools) {
      const result = this.check(serverId, tool);
      if (typeof result === 'object') withheld.push({ tool, change: result.changed });
      else allowed.push(tool);
    }
    return { allowed, withheld };
  }

  isWithheld(serverId: string, toolName: string): boolean {
    return this.#pending.has(pinKey(serverId, toolName));
  }

  /** Tools withheld since their definition changed, with what changed. */
  pending(): PendingPin[] {
    return [...this.#pending.values()]
      .map((p) => ({ server: p.serverId, tool: p.tool.name, ...p.change, detectedAt: p.detectedAt }))
      .sort((a, b) => compareText(a.server, b.server) || compareText(a.tool, b.tool));
  }

  /** The withheld new definition of a tool; undefined when none is pending. */
  pendingTool(serverId: string, toolName: string): PinnableTool | undefined {
    return this.#pending.get(pinKey(serverId, toolName))?.tool;
  }

  /** Pins the changed definition the user approved; resolves once saved. False when nothing was pending. */
  async approve(serverId: string, toolName: string): Promise<boolean> {
    const key = pinKey(serverId, toolName);
    const pending = this.#pending.get(key);
    if (!pending) return false;
    this.#pin(serverId, pending.tool, pending.hash);
    this.#pending.delete(key);
    await this.#save();
    return true;
  }

  /** Forgets a removed server's pins (a server added again later is trusted afresh). */
  async forgetServer(serverId: string): Promise<void> {
    for (const key of [...this.#pending.keys()]) if (this.#pending.get(key)?.serverId === serverId) this.#pending.delete(key);
    if (this.#pins.delete(serverId)) await this.#save();
  }

  /**
   * Forgets one tool's withheld change without pinning it (the tool is hidden: no one is asked about a
   * tool that cannot be called); the next check finds it again if it is still changed.
   */
  setAside(serverId: string, toolName: string): void {
    this.#pending.delete(pinKey(serverId, toolName));
  }

  /** Forgets every withheld change (pinning turned off); the next check finds them again if still changed. */
  clearPending(): void {
    this.#pending.clear();
  }

  /** Resolves when every change so far is on disk (rejects if the last write failed). */
  flush(): Promise<void> {
    return this.#write;
  }

  #pin(serverId: string, tool: PinnableTool, hash: string): void {
    let byTool = this.#pins.get(serverId);
    if (!byTool) this.#pins.set(serverId, (byTool = new Map()));
    byTool.set(tool.name, {
      hash,
      description: tool.description ?? null,
      inputSchema: structuredClone(tool.inputSchema ?? null),
      pinnedAt: new Date(this.#now()).toISOString(),
    });
  }

  #serialize(): string {
    const servers: Record<string, Record<string, Pin>> = {};
    for (const serverId of [...this.#pins.keys()].sort()) {
      const byTool = this.#pins.get(serverId)!;
      servers[serverId] = Object.fromEntries([...byTool.entries()].sort(([a], [b]) => compareText(a, b)));
    }
    return `${JSON.stringify({ version: FILE_VERSION, servers }, undefined, 2)}\n`;
  }

  /** Coalesced atomic saves: changes made while a write is queued share the next write. */
  #save(): Promise<void> {
    const write = this.#file.save();
    if (write !== this.#write) write.catch((error) => this.#log(`Could not save tool pins to ${this.file}`, error));
    this.#write = write;
    return write;
  }
}

/**
 * The spill store's contract: its options, what a caller hands in (who made a result, work already
 * done) and gets back (a plan to write, a lookup, a cleanup report), and the error a failed write raises.
 * The store itself is spill-store.ts.
 */
import type { TokenCount, TokenCounter } from '../tokens/token-counter.js';
import type { ResultView, SpooledView } from './result-view.js';
import type { SpillEntry } from './spill-index.js';
import { formatBytes } from './size-labels.js';

export const DEFAULT_SPILL_TTL_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_SPILL_QUOTA_BYTES = 1024 * 1024 * 1024;

export interface SpillStoreOptions {
  /** The spill folder itself, normally `<dataDir>/spill`. */
  dir: string;
  now: () => number;
  counter: TokenCounter;
  /** How long a result is kept; a getter follows the settings as they change (a lower one ends results kept before at the next cleanup). */
  ttlMs?: number | (() => number);
  /** Bytes the kept results may take; a getter follows the settings as they change (read at each put, cleanup and diskUsage). */
  quotaBytes?: number | (() => number);
  /** Memory for recently read texts and their line splits. Default 64 MiB. */
  cacheBytes?: number;
  log?: (message: string, error?: unknown) => void;
}

/** Who produced a result, and how long to keep it. */
export interface SpillMeta {
  server: string;
  tool: string;
  client?: string | null;
  ttlMs?: number;
  tokens?: TokenCount;
  /** The result is kept with personal data masked (PII maskResults): its placeholders mean nothing outside the call that made them. */
  masked?: boolean;
}

/** A result laid out for the store (see SpillStore.plan). */
export interface SpillPlan {
  /** The entry the result will have once written (or the entry it refreshes). */
  entry: SpillEntry;
  /** Keeps the result (call it once). Rejects with SpillWriteError. */
  write(): Promise<SpillEntry>;
  /**
   * Whether the answer may go out before `write` is done: the disk has room to spare and the texts spooled
   * so far are fine. Reads of the handle wait for the write; one that failed says so (PendingPuts).
   */
  answerFirst: boolean;
}

/** Work already done by the caller, so a multi-megabyte result is not looked at twice. */
export interface SpillPrepared {
  /** The result's view; a SpooledView's texts are on disk and are moved into the store, not read. */
  view?: ResultView | SpooledView;
  /** UTF-8 size of the result as the upstream sent it (JSON); serialized to measure when absent. */
  bytes?: number;
}

export type SpillLookup = { entry: SpillEntry } | { error: 'invalid' | 'unknown' | 'expired'; message: string };

export interface SpillCleanupReport {
  expired: number;
  missing: number;
  orphans: number;
  evicted: number;
}

/** Raised when a result cannot be kept (folder unwritable, disk full, over the quota). */
export class SpillWriteError extends Error {
  override readonly name = 'SpillWriteError';
}

/** What the model is told of a result that could not be kept (`what`: "The full result", or it with its handle). */
export function notKeptMessage(what: string, reason: string): string {
  return `${what} could not be kept (${reason}), so it cannot be read back; call the tool again with narrower arguments if you need more.`;
}

/** What the model is told of a handle that reads nothing, with the next step. */
export const handleMessages = {
  invalid: (handle: unknown) =>
    `"${String(handle).slice(0, 80)}" is not a spill handle (expected 12 characters a-z, 2-7): copy it exactly as the result gave it.`,
  unknown: (handle: string) =>
    `No spilled result has the handle "${handle}" (it may have been deleted or evicted): check the handle, or call the tool that made it again for a new one.`,
  expired: (handle: string, at: number) =>
    `The spilled result "${handle}" expired at ${new Date(at).toISOString()}: call the tool that made it again for a fresh result and a new handle.`,
};

/** Why a result is not kept: it alone is larger than the whole quota. */
export const overQuotaMessage = (bytes: number, quota: number): string =>
  `the result is ${formatBytes(bytes)}, more than the whole spill quota of ${formatBytes(quota)} set in Spillway's Settings`;

/** Server and tool of a result listed again after a crash whose folder does not say who kept it (an older Spillway's). */
export const UNKNOWN_ORIGIN = 'unknown';

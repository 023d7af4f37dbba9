/**
 * Where a transport streams its long lines: the settings of the raw spool and the registry that takes
 * a tool result's spooled texts over. Declared here, below both sides, so upstream/ (which spools) and
 * spill/ (which keeps the texts, spill/raw-texts.ts) meet without importing each other.
 */
import type { RawSpoolOptions, SpooledString } from './raw-spool.js';

/** What an upstream transport needs to spool long lines into a registry of spooled texts. */
export interface SpoolTarget {
  /** A line longer than this (bytes) is streamed through a spool instead of being joined in memory. */
  aboveBytes: number;
  options: RawSpoolOptions;
  /** Takes the texts of a tool result over (its placeholders stay valid until materialized or taken). */
  adopt(strings: SpooledString[]): void;
}

/**
 * The ledger's rollup file, `ledger-rollup.json`: closed ledger files folded into per-day totals, with
 * each day's totals per tool, per server and per client (all that the Savings view and `savings.report`
 * read), so the folder and the reading at each start stay small however many calls were made. `through`
 * is the highest ledger file index folded in: files up to it are counted here and only wait to be
 * deleted. The file is written whole to a temp file and renamed over the old one before any ledger file
 * is deleted (Ledger.rollUp), so a crash at any step loses no record and counts none twice.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ByActionSchema, SavingsTotalsSchema, emptySavingsTotals, type SavingsTotals } from '../../../shared/ledger.js';
import { writeAtomically } from '../files/atomic-file.js';
import type { DayTotals } from './savings-aggregates.js';

export const ROLLUP_FILE = 'ledger-rollup.json';

const VERSION = 1;

export interface Rollup {
  /** The highest ledger file index folded in. */
  through: number;
  /** Oldest first. */
  days: DayTotals[];
}

/** Totals with their zero counts left out: most are zero for most tools. */
const PackedTotalsSchema = SavingsTotalsSchema.extend({ byAction: ByActionSchema.partial() }).partial();
type PackedTotals = z.infer<typeof PackedTotalsSchema>;

const RollupFileSchema = z.object({
  version: z.literal(VERSION),
  through: z.number().int().nonnegative(),
  days: z.array(
    z.object({
      day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      totals: PackedTotalsSchema,
      byTool: z.array(z.tuple([z.string(), z.string(), PackedTotalsSchema])),
      byServer: z.array(z.tuple([z.string(), PackedTotalsSchema])),
      /** '' for records without a client. */
      byClient: z.array(z.tuple([z.string(), PackedTotalsSchema])),
    }),
  ),
});

const COUNTS = [
  'calls',
  'lists',
  'tokensUpstream',
  'tokensDelivered',
  'tokensSaved',
  'schemaTokensUpstream',
  'schemaTokensExposed',
  'schemaTokensSaved',
  'bytesUpstream',
  'bytesDelivered',
  'estimatedCalls',
  'encodingTokensSaved',
] as const satisfies readonly (keyof SavingsTotals)[];

type Action = keyof SavingsTotals['byAction'];

function pack(t: SavingsTotals): PackedTotals {
  const out: PackedTotals = {};
  for (const k of COUNTS) {
    const v = t[k];
    if (v) out[k] = v;
  }
  const byAction: Partial<Record<Action, number>> = {};
  for (const a of Object.keys(t.byAction) as Action[]) if (t.byAction[a]) byAction[a] = t.byAction[a];
  if (Object.keys(byAction).length > 0) out.byAction = byAction;
  return out;
}

function unpack(p: PackedTotals): SavingsTotals {
  const t = emptySavingsTotals();
  for (const k of COUNTS) {
    const v = p[k];
    if (v !== undefined) t[k] = v;
  }
  for (const a of Object.keys(t.byAction) as Action[]) t.byAction[a] = p.byAction?.[a] ?? 0;
  return t;
}

/** The rollup in `dir`; undefined when there is none. Throws when it cannot be read or is not a rollup. */
export async function readRollup(dir: string): Promise<Rollup | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, ROLLUP_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const file = RollupFileSchema.parse(JSON.parse(text));
  return {
    through: file.through,
    days: file.days.map((d) => ({
      day: d.day,
      totals: unpack(d.totals),
      byTool: d.byTool.map(([server, tool, totals]) => ({ server, tool, totals: unpack(totals) })),
      byServer: d.byServer.map(([server, totals]) => ({ server, totals: unpack(totals) })),
      byClient: d.byClient.map(([client, totals]) => ({ client, totals: unpack(totals) })),
    })),
  };
}

/** Writes the rollup over the old one in one step (owner-only: it counts per tool, as the ledger files do). */
export async function writeRollup(dir: string, rollup: Rollup): Promise<void> {
  // One day per line, so the file reads (and diffs) by day.
  const days = rollup.days.map((d) =>
    JSON.stringify({
      day: d.day,
      totals: pack(d.totals),
      byTool: d.byTool.map((t) => [t.server, t.tool, pack(t.totals)]),
      byServer: d.byServer.map((s) => [s.server, pack(s.totals)]),
      byClient: d.byClient.map((c) => [c.client, pack(c.totals)]),
    }),
  );
  const text = `{"version":${VERSION},"through":${rollup.through},"days":[\n${days.join(',\n')}\n]}\n`;
  await writeAtomically(join(dir, ROLLUP_FILE), Buffer.from(text, 'utf8'), 0o600);
}

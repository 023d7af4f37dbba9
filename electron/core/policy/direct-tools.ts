/**
 * The cap on directly listed tools (issue 5): clients have limits (Windsurf 100 in total, OpenAI 128,
 * Cursor 40-80 at times), so past the cap the least-used tools are reached through dispatch instead.
 */

export interface CappedTool {
  /** The exposed name; usage counts are keyed by it. */
  name: string;
}

export interface DirectSelection<T> {
  direct: T[];
  /** Moved behind spillway__dispatch by the cap (shown to the user). */
  dispatched: T[];
}

/**
 * Keeps the `cap` most-used tools direct (ties: name order) and sends the rest behind dispatch.
 * Deterministic; both lists keep the input order. `cap` counts upstream tools only: subtract Spillway's
 * own tools from a client's limit first. null = no cap.
 */
export function selectDirectTools<T extends CappedTool>(
  entries: readonly T[],
  cap: number | null,
  usageCounts: ReadonlyMap<string, number> | Readonly<Record<string, number>>,
): DirectSelection<T> {
  if (cap === null || entries.length <= cap) return { direct: [...entries], dispatched: [] };
  const usage = (name: string): number =>
    (usageCounts instanceof Map ? usageCounts.get(name) : Object.hasOwn(usageCounts, name) ? (usageCounts as Record<string, number>)[name] : 0) ?? 0;
  const ranked = [...entries].sort((a, b) => usage(b.name) - usage(a.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const keep = new Set(ranked.slice(0, Math.max(0, cap)).map((e) => e.name));
  return {
    direct: entries.filter((e) => keep.has(e.name)),
    dispatched: entries.filter((e) => !keep.has(e.name)),
  };
}

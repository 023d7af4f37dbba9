/** Number, size and time formatting for the views, in the user's locale. */

const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

export function formatCount(n: number): string {
  return whole.format(n);
}

/** 12.3K-style, for totals where the exact figure is noise. */
export function formatCompact(n: number): string {
  return compact.format(n);
}

/** A token count, "≈" before it when it is an estimate; compact (12.3K) for log rows. */
export function formatTokens(n: number, estimated = false, short = false): string {
  return `${estimated ? '≈' : ''}${short ? formatCompact(n) : formatCount(n)}`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 10 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

/** A duration as "850 ms" or "1.2 s" (the same words in every locale, so the hub's own search of older rows finds them). */
export { plainDuration as formatDuration } from '../../../shared/event-summary.js';

/** The local wall-clock time of an ISO timestamp, with seconds. */
export function formatClock(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString(undefined, { hour12: false });
}

/**
 * Share of produced tokens kept out of the context, as a whole percent; negative when more was delivered (shown as
 * it is). Never 100 while anything was delivered, and never 0 while anything was kept out: 220 tokens delivered of
 * 157,893 is 99%, not "100% kept out".
 */
export function savedPercent(produced: number, delivered: number): number {
  if (produced <= 0) return 0;
  const percent = Math.round(((produced - delivered) / produced) * 100);
  if (percent >= 100 && delivered > 0) return 99;
  if (percent <= 0 && delivered < produced && delivered >= 0) return 1;
  return percent;
}

/** "1 tool", "2 tools", "1,204 lines": a count with its noun in the right number. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

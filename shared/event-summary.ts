/**
 * One line of plain text per hub event: what a row of the Activity window reads (and its accessible name),
 * and the words the hub matches when it searches older events for that window (electron/core/log/event-search.ts).
 * One wording for both; only the numbers are written differently: the window in the user's locale (Intl),
 * the hub as en-US writes them, by hand (no ICU in the hub, see shared/plain-text.ts).
 */
import type { HubEvent, ResultAction } from './events.js';
import { formatCount } from './plain-text.js';
import { statusSentence, transportWords } from './plain-words.js';

/** How a summary writes its numbers. */
export interface SummaryNumbers {
  /** A token count, "≈" before it when it is an estimate; compact (12.3K) when `short`. */
  tokens(n: number, estimated?: boolean, short?: boolean): string;
  /** A call's duration: "12 ms", "1.2 s". */
  duration(ms: number): string;
  /** A whole count: "1,204". */
  count(n: number): string;
}

const OUTCOME: Record<ResultAction, string> = {
  pass: 'passed',
  spill: 'spilled',
  truncate: 'truncated',
  cache: 'answered from cache',
  compress: 'compressed',
  error: 'failed',
  cancelled: 'cancelled by the client',
};

export function summarizeEvent(e: HubEvent, numbers: SummaryNumbers): string {
  const { tokens, duration } = numbers;
  const counted = (n: number, one: string) => `${numbers.count(n)} ${n === 1 ? one : `${one}s`}`;
  switch (e.type) {
    case 'call.started':
      return `${e.exposedName} called${e.client ? ` by ${e.client}` : ''}…`;
    case 'call.finished': {
      const up = e.tokensUpstream !== undefined ? tokens(e.tokensUpstream, e.tokensEstimated, true) : '';
      const counts =
        e.tokensUpstream !== undefined && e.tokensDelivered !== undefined
          ? e.tokensUpstream === e.tokensDelivered
            ? `, ${up} tokens`
            : `, ${up} → ${tokens(e.tokensDelivered, false, true)} tokens`
          : '';
      // The error goes last: it is often a whole sentence, and "…reconnecting. in 8 ms" reads badly.
      const why = e.isError && e.error ? `: ${e.error}` : '';
      return `${e.exposedName} ${e.isError ? 'failed' : OUTCOME[e.action]} in ${duration(e.durationMs)}${counts}${why}`;
    }
    case 'call.counted':
      if (e.readBack) return `${e.exposedName}: read back ${tokens(e.tokensDelivered)} tokens of a kept result`;
      if (e.dispatchAnswer) return `${e.exposedName}: answered with ${tokens(e.tokensDelivered)} tokens`;
      if (e.listed) {
        return `Tool list sent: ${tokens(e.tokensDelivered)} tokens of tool descriptions (your servers offer ${tokens(e.tokensUpstream)})`;
      }
      return `${e.exposedName} counted${e.tokensEstimated ? ' (estimated, too big to count exactly)' : ''}: ${tokens(e.tokensUpstream, e.tokensEstimated)} tokens produced, ${tokens(e.tokensDelivered)} delivered`;
    case 'upstream.status':
      return statusSentence(e.server, e.status, e.error);
    case 'upstream.stderr':
      return `${e.server}: ${e.line}`;
    case 'session.opened':
      return `${e.client ?? 'A client'}${e.clientVersion ? ` ${e.clientVersion}` : ''} connected ${transportWords(e.transport)}`;
    case 'session.closed':
      return `${e.client ?? 'A client'} disconnected`;
    case 'session.reaped':
      return `${e.client ?? 'A client'}'s session was closed: ${e.reason === 'idle' ? 'unused for a while' : 'too many sessions were open'}`;
    case 'catalog.changed': {
      // Resources and prompts are named only when there are some: most servers offer tools alone.
      const extra = [e.resources > 0 ? counted(e.resources, 'resource') : '', e.prompts > 0 ? counted(e.prompts, 'prompt') : ''];
      return `Tools changed: ${[counted(e.tools, 'tool'), ...extra.filter(Boolean)].join(', ')}`;
    }
    case 'config.changed':
      return `Settings changed: ${e.what}`;
    case 'tool.withheld':
      return `${e.server}: ${e.tool} changed and is held back until you approve it (Tools & policies)`;
    case 'tool.approved':
      return `${e.server}: ${e.tool} approved`;
    case 'log':
      return e.server ? `${e.server}: ${e.message}` : e.message;
  }
}

/** A duration as a log row writes it: "12 ms" under a second, then "1.2 s", "12 s". */
export function plainDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** A count as en-US compact notation writes it with one decimal at most: 999, 1.2K, 12.3K, 1M. */
export function plainCompact(n: number): string {
  const units = ['K', 'M', 'B', 'T'];
  if (Math.abs(Math.round(n)) < 1000) return String(Math.round(n));
  let unit = 0;
  let tenths = Math.round(n / 100);
  while (Math.abs(tenths) >= 10_000 && unit < units.length - 1) tenths = Math.round(n / 10 ** (3 * ++unit + 2));
  return `${tenths % 10 === 0 ? tenths / 10 : (tenths / 10).toFixed(1)}${units[unit]}`;
}

/** Numbers as en-US writes them, without Intl: what the hub matches a search against. */
export const plainNumbers: SummaryNumbers = {
  tokens: (n, estimated = false, short = false) => `${estimated ? '≈' : ''}${short ? plainCompact(n) : formatCount(n)}`,
  duration: plainDuration,
  count: formatCount,
};

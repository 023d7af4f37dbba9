/** One line of plain text per hub event, for log rows and their accessible names. */
import type { HubEvent, ResultAction } from '../../../shared/events.js';
import { counted, formatDuration, formatTokens } from './format.js';
import { statusSentence, transportWords } from './plain-words.js';

const OUTCOME: Record<ResultAction, string> = {
  pass: 'passed',
  spill: 'spilled',
  truncate: 'truncated',
  cache: 'answered from cache',
  compress: 'compressed',
  error: 'failed',
  cancelled: 'cancelled by the client',
};

export function summarize(e: HubEvent): string {
  switch (e.type) {
    case 'call.started':
      return `${e.exposedName} called${e.client ? ` by ${e.client}` : ''}…`;
    case 'call.finished': {
      const up = e.tokensUpstream !== undefined ? formatTokens(e.tokensUpstream, e.tokensEstimated, true) : '';
      const tokens =
        e.tokensUpstream !== undefined && e.tokensDelivered !== undefined
          ? e.tokensUpstream === e.tokensDelivered
            ? `, ${up} tokens`
            : `, ${up} → ${formatTokens(e.tokensDelivered, false, true)} tokens`
          : '';
      // The error goes last: it is often a whole sentence, and "…reconnecting. in 8 ms" reads badly.
      const why = e.isError && e.error ? `: ${e.error}` : '';
      return `${e.exposedName} ${e.isError ? 'failed' : OUTCOME[e.action]} in ${formatDuration(e.durationMs)}${tokens}${why}`;
    }
    case 'call.counted':
      if (e.readBack) return `${e.exposedName}: read back ${formatTokens(e.tokensDelivered)} tokens of a kept result`;
      if (e.dispatchAnswer) return `${e.exposedName}: answered with ${formatTokens(e.tokensDelivered)} tokens`;
      if (e.listed) {
        return `Tool list sent: ${formatTokens(e.tokensDelivered)} tokens of tool descriptions (your servers offer ${formatTokens(e.tokensUpstream)})`;
      }
      return `${e.exposedName} counted${e.tokensEstimated ? ' (estimated, too big to count exactly)' : ''}: ${formatTokens(e.tokensUpstream, e.tokensEstimated)} tokens produced, ${formatTokens(e.tokensDelivered)} delivered`;
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

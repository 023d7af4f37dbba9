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
      const outcome = e.isError ? `failed${e.error ? `: ${e.error}` : ''}` : OUTCOME[e.action];
      return `${e.exposedName} ${outcome} in ${formatDuration(e.durationMs)}${tokens}`;
    }
    case 'call.counted':
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
    case 'catalog.changed':
      return `Tools changed: ${counted(e.tools, 'tool')}, ${counted(e.resources, 'resource')}, ${counted(e.prompts, 'prompt')}`;
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

/**
 * One line of plain text per hub event, for log rows and their accessible names: shared/event-summary.ts's
 * wording (the hub searches older events by the same words), with numbers in the user's locale.
 */
import type { HubEvent } from '../../../shared/events.js';
import { summarizeEvent, type SummaryNumbers } from '../../../shared/event-summary.js';
import { formatCount, formatDuration, formatTokens } from './format.js';

const localNumbers: SummaryNumbers = { tokens: formatTokens, duration: formatDuration, count: formatCount };

export function summarize(e: HubEvent): string {
  return summarizeEvent(e, localNumbers);
}

/**
 * Protocol terms said in plain words (issue 14, item 7). The phrases a log row reads live in
 * shared/plain-words.ts (the hub's search of older events words rows the same way); the table labels here.
 */
export { statusSentence, transportWords } from '../../../shared/plain-words.js';

/** How a client reached Spillway, as a short table cell. */
export function transportLabel(transport: string): string {
  if (transport === 'http') return 'Web address';
  if (transport === 'stdio') return 'Started Spillway';
  if (transport === 'bridge') return 'Connector program';
  return transport;
}

/**
 * Protocol terms said in plain words (issue 14, item 7): what a user reads instead of stdio, bridge, or
 * a raw status name. One place, so every view (and the hub's search of older events) says the same thing.
 */
import type { UpstreamStatus } from './events.js';

const TRANSPORT: Record<string, string> = {
  http: 'over its local web address',
  stdio: 'by starting Spillway itself',
  bridge: "through Spillway's connector program",
};

/** How a client reached Spillway, as a phrase: "over its local web address". */
export function transportWords(transport: string): string {
  return TRANSPORT[transport] ?? transport;
}

/** One sentence about a server's new state: "weather failed: …", not "weather is error: …". */
export function statusSentence(server: string, status: UpstreamStatus, error?: string): string {
  const why = error ? `: ${error}` : '';
  switch (status) {
    case 'ready':
      return `${server} is ready`;
    case 'connecting':
      return `${server} is starting${why}`;
    case 'error':
      return `${server} failed${why}`;
    case 'stopped':
      return `${server} stopped${why}`;
    case 'disabled':
      return `${server} is turned off`;
    case 'idle':
      return `${server} is idle (it starts on its next call)`;
    case 'needs-sign-in':
      return `${server} needs you to sign in${why}`;
  }
}

/**
 * The hub's live sessions folded into one row per app (issue 14, item 8): an app that opened several
 * sessions (a window each, or reconnects) is still one app using Spillway.
 */
import type { SessionInfo } from '../../../shared/api.js';

export interface AppSessions {
  /** The name the app gave when it connected; '' when it gave none. */
  app: string;
  version?: string;
  sessions: number;
  transports: SessionInfo['transport'][];
  /** When its oldest open session started. */
  since: string;
  lastActivity: string;
}

/** Groups by the app's name; the most recently active app first. */
export function groupSessions(sessions: readonly SessionInfo[]): AppSessions[] {
  const groups = new Map<string, AppSessions>();
  for (const s of sessions) {
    const app = s.client ?? '';
    const g = groups.get(app);
    if (!g) {
      groups.set(app, {
        app,
        version: s.clientVersion,
        sessions: 1,
        transports: [s.transport],
        since: s.openedAt,
        lastActivity: s.lastActivity,
      });
      continue;
    }
    g.sessions++;
    if (!g.transports.includes(s.transport)) g.transports.push(s.transport);
    if (s.openedAt < g.since) g.since = s.openedAt;
    if (s.lastActivity > g.lastActivity) {
      g.lastActivity = s.lastActivity;
      g.version = s.clientVersion ?? g.version;
    }
  }
  return [...groups.values()].sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
}

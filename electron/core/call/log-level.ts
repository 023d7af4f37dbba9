/**
 * The logging level upstreams are set to (logging/setLevel). An upstream's log messages go to every
 * session, each of which passes on only the levels it asked for (DownstreamSession.log); so upstreams send
 * at the most verbose level any session wants, and a session that set no level wants them all. An
 * upstream that becomes ready (started, restarted, reconnected) is told the level again: a new process
 * starts at its own default.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { LOG_LEVELS, type DownstreamSession } from '../downstream/session.js';
import type { Upstream } from '../upstream/upstream.js';

/** The most verbose level the open sessions want, one that set none counting as debug; undefined when none set a level. */
export function wantedLogLevel(sessions: Iterable<Pick<DownstreamSession, 'logLevel' | 'closed'>>): LoggingLevel | undefined {
  const open = [...sessions].filter((s) => !s.closed);
  if (!open.some((s) => s.logLevel)) return undefined;
  return LOG_LEVELS[Math.min(...open.map((s) => LOG_LEVELS.indexOf(s.logLevel ?? 'debug')))];
}

export class UpstreamLogLevel {
  /** What upstreams were last told; undefined until a session sets a level. */
  #level: LoggingLevel | undefined;

  constructor(
    private readonly deps: {
      sessions: () => Iterable<DownstreamSession>;
      upstreams: () => ReadonlyMap<string, Upstream>;
    },
  ) {}

  /**
   * Sessions changed (one set a level, opened or closed): ready upstreams are told the level when it
   * changed, or in any case with `always` (a client that sets its level expects it sent).
   */
  async update(always: boolean): Promise<void> {
    // Once upstreams were told a level they keep one: debug when no session wants a level any more.
    const level = wantedLogLevel(this.deps.sessions()) ?? (this.#level && 'debug');
    if (!level || (level === this.#level && !always)) return;
    this.#level = level;
    await Promise.all([...this.deps.upstreams().values()].map((up) => tell(up, level)));
  }

  /** An upstream is ready: it is told the level sessions want, if any set one. */
  upstreamReady(up: Upstream): void {
    if (this.#level) void tell(up, this.#level);
  }
}

function tell(up: Upstream, level: LoggingLevel): Promise<unknown> {
  if (!up.client || !up.capabilities?.logging) return Promise.resolve();
  return up.client.setLoggingLevel(level).catch(() => undefined);
}

/** What a Hub is started with (hub.ts): where its files are, its version and platform, and the tuning tests shorten. */
import type { EndpointHooks } from '../downstream/http-endpoint.js';
import type { HttpSessionLimits } from '../downstream/session-reaping.js';
import type { AppPaths } from '../files/app-paths.js';
import type { UpstreamHooks, UpstreamOptions } from '../upstream/upstream.js';

export interface HubOptions {
  paths: AppPaths;
  version: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** Overrides the configured port (the CLI's --port). */
  port?: number;
  /**
   * Start stdio servers with the PATH a fresh login gets (true when launched from a GUI): the login
   * shell's on macOS and Linux, the registry's on Windows (upstream/server-path.ts).
   */
  useLoginShellPath?: boolean;
  /** Tuning for upstream reconnects (tests shorten these). */
  upstream?: Partial<UpstreamOptions>;
  /** Extra HTTP routes (control API, UI). */
  handleOther?: EndpointHooks['handleOther'];
  /** Per-client tokens (one-click client configuration): who holds this token, if anyone. */
  authenticateClient?: (token: string) => { clientId: string } | undefined;
  /** The call cache's clock (tests expire entries without waiting). */
  cacheClock?: () => number;
  /** How upstreams are reached (default: stdio, Streamable HTTP or SSE per config; tests pass in-memory pairs). */
  createTransport?: UpstreamHooks['createTransport'];
  /** Open the HTTP endpoint on start (default true; in-process tests connect sessions with connectSession). */
  listen?: boolean;
  /** How long a session's first tools/list waits for the upstreams ready last run (default FIRST_LIST_WAIT_MS). */
  firstListWaitMs?: number;
  /** When abandoned HTTP sessions are closed: idle timeout, cap and clock (tests shorten them). */
  httpSessions?: HttpSessionLimits;
  /** How long one PII masking with custom patterns may run (default PII_DEADLINE_MS; tests shorten it). */
  piiDeadlineMs?: number;
}

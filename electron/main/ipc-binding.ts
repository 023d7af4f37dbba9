/**
 * The control contract over Electron IPC. One invoke channel carries `{method, req}` for every method of
 * `shared/api.ts`; one push channel carries hub events. The channel names and the method list are written
 * here only: the preload receives them through `bridgeArgument()` (a sandboxed preload cannot import this
 * file), so nothing is spelled twice.
 *
 * Every call checks its sender (our window's webContents, its main frame, on the renderer page), lets the
 * dispatcher parse the request with the contract's zod schema, and resolves to an ApiResult — a throw
 * would cross IPC as a bare message (see VS Code's validatedIpcMain). A successful `upstreams.signIn`
 * has its http(s) authorization URL opened in the system browser here (sign-in-opener.ts).
 *
 * No 'electron' import: the few ipcMain/webContents members used are typed structurally, so the binding
 * runs in Node tests against plain objects.
 */
import { api, type ApiResult } from '../../shared/api.js';
import type { HubEvent } from '../../shared/events.js';
import { isRendererUrl, type RendererLocation } from './navigation-guard.js';
import { openSignInPage, type OpenExternal } from './sign-in-opener.js';

export const IPC_CHANNELS = { call: 'spillway:call', event: 'spillway:event' } as const;

/** The switch the preload looks for in its process.argv (webPreferences.additionalArguments). */
export const BRIDGE_ARG_PREFIX = '--spillway-bridge=';

/** What the preload needs to know: where to send calls, where events arrive, and which methods exist. */
export interface BridgeWiring {
  call: string;
  event: string;
  methods: string[];
}

export function bridgeWiring(): BridgeWiring {
  return { call: IPC_CHANNELS.call, event: IPC_CHANNELS.event, methods: Object.keys(api) };
}

/** The renderer process argument carrying the wiring (URI-encoded JSON: no quoting issues on any OS). */
export function bridgeArgument(wiring: BridgeWiring = bridgeWiring()): string {
  return `${BRIDGE_ARG_PREFIX}${encodeURIComponent(JSON.stringify(wiring))}`;
}

// ── structural views of the Electron objects used ───────────────────────────────────────────────
export interface SenderFrameLike {
  readonly url: string;
  readonly parent: unknown;
}

export interface InvokeEventLike {
  readonly sender: { readonly id: number };
  readonly senderFrame: SenderFrameLike | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

export interface EventTargetLike {
  readonly id: number;
  isDestroyed(): boolean;
  getURL(): string;
  send(channel: string, ...args: unknown[]): void;
}

export type SenderVerdict = { trusted: true } | { trusted: false; reason: string };

/** Trusted = the main window's webContents, from its main frame, showing the renderer page. */
export function checkSender(event: InvokeEventLike, trustedId: number | undefined, location: RendererLocation): SenderVerdict {
  if (trustedId === undefined || event.sender?.id !== trustedId) return { trusted: false, reason: 'not the Spillway window' };
  let frame: SenderFrameLike | null;
  try {
    // Electron may throw when the frame was destroyed or navigated away since the message was sent.
    frame = event.senderFrame;
  } catch {
    frame = null;
  }
  if (!frame) return { trusted: false, reason: 'the sending frame is gone' };
  if (frame.parent !== null && frame.parent !== undefined) return { trusted: false, reason: 'not the main frame' };
  if (!isRendererUrl(location, frame.url)) return { trusted: false, reason: `unexpected page ${frame.url}` };
  return { trusted: true };
}

type Failure = Extract<ApiResult<unknown>, { ok: false }>;

/** Reads `{method, req}`; anything else is refused with a result, not a throw. */
export function parseEnvelope(envelope: unknown): { method: string; req: unknown } | Failure {
  if (envelope === null || typeof envelope !== 'object' || Array.isArray(envelope)) {
    return { ok: false, code: 'invalid', message: 'A call must be an object {method, req}', field: '(root)' };
  }
  const { method, req } = envelope as { method?: unknown; req?: unknown };
  if (typeof method !== 'string' || method === '') {
    return { ok: false, code: 'invalid', message: 'method: must be the name of a control method', field: 'method' };
  }
  return { method, req };
}

export interface ControlIpcOptions {
  ipcMain: IpcMainLike;
  /** The control dispatcher: parses with the contract's schema and always resolves to an ApiResult. */
  dispatch(method: string, body: unknown): Promise<ApiResult<unknown>>;
  /** The id of the main window's webContents, or undefined while there is no window. */
  trustedSenderId(): number | undefined;
  location: RendererLocation;
  /** Hub events (`hub.events.subscribe`); returns the unsubscribe. */
  subscribe(listener: (event: HubEvent) => void): () => void;
  /** Where events go: the main window's webContents, when there is one. */
  eventTarget(): EventTargetLike | undefined;
  /** Told about refused callers (for the log). */
  onRefused?(reason: string): void;
  /** The system browser: an `upstreams.signIn` answer's http(s) URL opens there (sign-in-opener.ts). */
  openExternal?: OpenExternal;
  log?(message: string): void;
}

/** Registers the call handler and the event push; returns the unbind. */
export function bindControlIpc(options: ControlIpcOptions): () => void {
  const { ipcMain, location } = options;
  ipcMain.handle(IPC_CHANNELS.call, async (event, envelope): Promise<ApiResult<unknown>> => {
    const verdict = checkSender(event, options.trustedSenderId(), location);
    if (!verdict.trusted) {
      options.onRefused?.(verdict.reason);
      return { ok: false, code: 'unauthorized', message: `Refused a control call: ${verdict.reason}` };
    }
    const call = parseEnvelope(envelope);
    if ('ok' in call) return call;
    try {
      const result = await options.dispatch(call.method, call.req);
      return options.openExternal ? await openSignInPage(call.method, result, options.openExternal, options.log) : result;
    } catch (err) {
      // The dispatcher promises not to throw; this keeps the promise even if it ever does.
      return { ok: false, code: 'internal', message: err instanceof Error ? err.message : String(err) };
    }
  });
  const unsubscribe = options.subscribe((hubEvent) => {
    const target = options.eventTarget();
    if (!target || target.isDestroyed()) return;
    // Only our page gets events; a window that somehow left it hears nothing.
    if (!isRendererUrl(location, target.getURL())) return;
    target.send(IPC_CHANNELS.event, hubEvent);
  });
  return () => {
    unsubscribe();
    ipcMain.removeHandler(IPC_CHANNELS.call);
  };
}

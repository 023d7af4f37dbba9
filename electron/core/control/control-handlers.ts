/**
 * The control contract's handlers: each method of `shared/api.ts` bound to the hub. Requests are parsed
 * with the contract's schema; every outcome is an ApiResult, never a throw (the IPC and HTTP transports
 * both call `dispatch`).
 */
import { ZodError } from 'zod';
import { api, isMethodName, type ApiResult, type MethodName, type Req, type Res } from '../../../shared/api.js';
import { ConfigError, describeZodError, maskSettingsSecrets } from '../../../shared/config.js';
import { ControlError, type Hub } from '../hub.js';
import type { SpillEntry } from '../spill/spill-index.js';
import type { SpillEntryInfo } from '../../../shared/api-spill.js';
import { compressHandlers } from './compress-handlers.js';
import { policyHandlers } from './policy-handlers.js';

export type Handler<M extends MethodName> = (req: ReturnType<(typeof api)[M]['req']['parse']>) => Promise<Res<M>> | Res<M>;
export type HandlerMap = { [M in MethodName]?: Handler<M> };

/** The hub's own methods; other features register theirs through `extraHandlers`. */
export function hubHandlers(hub: Hub): HandlerMap {
  return {
    status: () => hub.status(),
    'upstreams.list': () => hub.listUpstreams(),
    'upstreams.add': (req) => hub.addUpstream(req),
    'upstreams.update': (req) => hub.updateUpstream(req),
    'upstreams.remove': (req) => hub.removeUpstream(req.id),
    'upstreams.restart': (req) => hub.restartUpstream(req.id),
    'upstreams.test': (req) => hub.testUpstream(req.config),
    'upstreams.tools': (req) => hub.toolSummaries(req.id),
    // Secrets (the compression API key) leave the hub masked; sent back masked, they keep the stored value.
    'settings.get': () => maskSettingsSecrets(hub.settings),
    'settings.set': async (req) => maskSettingsSecrets(await hub.setSettings(req)),
    'events.query': (req) => hub.events.query(req),
    'sessions.list': () => hub.sessionInfos(),
    'spill.list': () => hub.spill.store.list().map(spillInfo),
    'spill.preview': async (req) => {
      if ('error' in hub.spill.store.lookup(req.handle)) throw new ControlError('not_found', `No spilled result "${req.handle}" (unknown or expired)`, 'handle');
      const p = await hub.spill.store.preview(req.handle, req.maxTokens);
      return { entry: spillInfo(p.entry), text: p.text, truncated: p.truncated };
    },
    'spill.delete': async (req) => ({ deleted: await hub.spill.store.delete(req.handle) }),
    'spill.clear': async () => ({ deleted: await hub.spill.store.clear() }),
    'spill.usage': () => hub.spill.store.diskUsage(),
    'savings.report': (req) => hub.ledger.report(req),
    ...policyHandlers(hub),
    ...compressHandlers(hub),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A spill index entry as the contract shows it (times as ISO strings, no file names). */
export function spillInfo(e: SpillEntry): SpillEntryInfo {
  return {
    handle: e.handle,
    server: e.server,
    tool: e.tool,
    client: e.client,
    createdAt: iso(e.createdAt),
    expiresAt: iso(e.expiresAt),
    lastAccess: iso(e.lastAccess),
    bytes: e.bytes,
    lines: e.lines,
    tokens: e.tokens,
    tokensEstimated: e.tokensEstimated,
    contentType: e.contentType,
  };
}

export class ControlDispatcher {
  constructor(private readonly handlers: HandlerMap) {}

  has(method: string): boolean {
    return isMethodName(method) && this.handlers[method] !== undefined;
  }

  /** Parses the request, runs the handler, validates the response; always resolves to an ApiResult. */
  async dispatch(method: string, body: unknown): Promise<ApiResult<unknown>> {
    if (!isMethodName(method) || !this.handlers[method]) {
      return { ok: false, code: 'not_found', message: `Unknown method: ${method}` };
    }
    const spec = api[method];
    const parsed = spec.req.safeParse(body ?? {});
    if (!parsed.success) {
      const { field, message } = describeZodError(parsed.error);
      return { ok: false, code: 'invalid', message, field };
    }
    try {
      const handler = this.handlers[method] as (req: unknown) => Promise<unknown> | unknown;
      const value = await handler(parsed.data);
      return { ok: true, value: spec.res.parse(value) };
    } catch (err) {
      return toApiError(err);
    }
  }
}

export function toApiError(err: unknown): ApiResult<never> {
  if (err instanceof ControlError) return { ok: false, code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) };
  if (err instanceof ConfigError) return { ok: false, code: 'invalid', message: err.message, ...(err.field ? { field: err.field } : {}) };
  if (err instanceof ZodError) {
    const { field, message } = describeZodError(err);
    return { ok: false, code: 'internal', message: `Response failed its schema: ${message}`, field };
  }
  const e = err as NodeJS.ErrnoException;
  // Errors of the clients library: about a client's own config file.
  const name = (err as Error)?.name;
  if (name === 'ConfigParseError' || name === 'ConfigShapeError' || name === 'ConfigBusyError') return { ok: false, code: 'conflict', message: e.message };
  if (name === 'NoBackupError') return { ok: false, code: 'not_found', message: e.message };
  if (name === 'ConfigWriteError' || name === 'ConfigReadError') return { ok: false, code: 'unavailable', message: e.message };
  if (name === 'UnsupportedEntryError') return { ok: false, code: 'invalid', message: e.message };
  if (e?.code === 'EACCES' || e?.code === 'EPERM' || e?.code === 'EROFS') {
    return { ok: false, code: 'unavailable', message: `Cannot write: ${e.message}` };
  }
  return { ok: false, code: 'internal', message: e instanceof Error ? e.message : String(err) };
}

export type { Req };

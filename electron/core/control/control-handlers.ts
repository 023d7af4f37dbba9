/**
 * The control contract's handlers: each method of `shared/api.ts` bound to the hub's control side. Requests are parsed
 * with the contract's schema; every outcome is an ApiResult, never a throw (the IPC and HTTP transports
 * both call `dispatch`).
 */
import { ZodError } from 'zod';
import { api, isMethodName, type ApiResult, type MethodName, type Req, type Res } from '../../../shared/api.js';
import { ConfigError, describeZodError, maskSettingsSecrets } from '../../../shared/config.js';
import type { SpillEntry } from '../spill/spill-index.js';
import type { SpillEntryInfo } from '../../../shared/api-spill.js';
import { compressHandlers } from './compress-handlers.js';
import { ControlError } from './control-error.js';
import type { ControlParts } from './control-parts.js';
import { policyHandlers } from './policy-handlers.js';
import { signInHandlers } from './sign-in-handlers.js';

export type Handler<M extends MethodName> = (req: ReturnType<(typeof api)[M]['req']['parse']>) => Promise<Res<M>> | Res<M>;
export type HandlerMap = { [M in MethodName]?: Handler<M> };

/** The hub's own methods (the clients service registers its own: clients-handlers.ts). */
export function hubHandlers(parts: ControlParts): HandlerMap {
  const { control, status, spill } = parts;
  // Configured secret values a tool echoed in a kept result are masked in what the window shows, as in the
  // events (log/secret-values.ts); the model's own copy is the tool's output and stays as the server sent it.
  const masked = (text: string) => parts.events.secrets.mask(text);
  return {
    status: () => status.report(),
    'upstreams.list': () => status.listUpstreams(),
    'upstreams.add': (req) => control.addUpstream(req),
    'upstreams.update': (req) => control.updateUpstream(req),
    'upstreams.setEnabled': async (req) => {
      await control.setServerFields(req.id, { enabled: req.enabled });
      return { id: req.id };
    },
    'upstreams.remove': (req) => control.removeUpstream(req.id),
    'upstreams.undoRemove': (req) => control.undoRemove(req.id),
    'upstreams.restart': (req) => control.restartUpstream(req.id),
    'upstreams.test': (req) => control.testUpstream(req.config, req.id),
    'upstreams.tools': (req) => status.toolSummaries(req.id),
    // Secrets (the compression API key) leave the hub masked; sent back masked, they keep the stored value.
    'settings.get': () => maskSettingsSecrets(parts.settings()),
    'settings.set': async (req) => maskSettingsSecrets(await control.setSettings(req)),
    'events.query': (req) => parts.events.query(req),
    'events.search': (req) => parts.events.search(req),
    'sessions.list': () => status.sessionInfos(),
    'spill.list': () => spill.list().map(spillInfo),
    'spill.preview': async (req) => {
      if ('error' in spill.lookup(req.handle))
        throw new ControlError('not_found', `No spilled result "${req.handle}" (unknown or expired)`, 'handle');
      const p = await spill.preview(req.handle, req.maxTokens);
      return { entry: spillInfo(p.entry), text: masked(p.text), truncated: p.truncated };
    },
    // The same read-back the model gets; its failures (bad regex, line past the end) come back as `invalid`.
    'spill.read': async (req) => {
      if ('error' in spill.lookup(req.handle))
        throw new ControlError('not_found', `No spilled result "${req.handle}" (unknown or expired)`, 'handle');
      const result = await parts.readSpill(req);
      const text = masked(result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n'));
      if (result.isError) throw new ControlError('invalid', text, req.op === 'grep' ? 'pattern' : undefined);
      return { text };
    },
    'spill.delete': async (req) => ({ deleted: await spill.delete(req.handle) }),
    'spill.clear': async () => ({ deleted: await spill.clear() }),
    'spill.usage': () => spill.diskUsage(),
    'savings.report': (req) => parts.ledger.report(req),
    ...policyHandlers(parts),
    ...signInHandlers(parts.signIns),
    ...compressHandlers(parts.settings),
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
    ...(e.binary.length === 0 ? { resultBytes: e.textBytes } : {}),
    lines: e.lines,
    tokens: e.tokens,
    tokensEstimated: e.tokensEstimated,
    contentType: e.contentType,
  };
}

export class ControlDispatcher {
  /**
   * `mask` hides configured secret values in error messages (they may quote what a server or the SDK said,
   * an address with its key in it), as the events do.
   */
  constructor(
    private readonly handlers: HandlerMap,
    private readonly mask: (text: string) => string = (text) => text,
  ) {}

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
      const failure = toApiError(err);
      return failure.ok ? failure : { ...failure, message: this.mask(failure.message) };
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
  // Errors of the clients library and service (matched by name: both load on first use).
  const name = (err as Error)?.name;
  if (
    name === 'ConfigParseError' ||
    name === 'ConfigShapeError' ||
    name === 'ConfigBusyError' ||
    name === 'ForeignEntryError' ||
    name === 'RestoreConflictError'
  )
    return { ok: false, code: 'conflict', message: e.message };
  // Spillway's own config.json changed outside it (files/config-file.ts): no change can be saved until a
  // restart reads the file again, which its message says. Not `conflict`: an edit form takes that for a
  // server changed elsewhere, and offers a Reload that cannot help here.
  if (name === 'ConfigChangedError') return { ok: false, code: 'unavailable', message: e.message };
  if (name === 'NoBackupError') return { ok: false, code: 'not_found', message: e.message };
  if (name === 'ConfigWriteError' || name === 'ConfigReadError') return { ok: false, code: 'unavailable', message: e.message };
  if (name === 'UnsupportedEntryError') return { ok: false, code: 'invalid', message: e.message };
  if (name === 'UnknownImportError') return { ok: false, code: 'invalid', message: e.message, field: 'names' };
  if (name === 'UnstableEndpointError') return { ok: false, code: 'unavailable', message: e.message };
  if (e?.code === 'EACCES' || e?.code === 'EPERM' || e?.code === 'EROFS') {
    return { ok: false, code: 'unavailable', message: `Cannot write: ${e.message}` };
  }
  return { ok: false, code: 'internal', message: e instanceof Error ? e.message : String(err) };
}

export type { Req };

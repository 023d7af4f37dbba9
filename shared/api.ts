/**
 * The control contract between the hub and its UIs (Electron IPC and HTTP+SSE are both generated from it).
 * Every method has a zod request and response schema; both ends parse. Errors cross as results, not throws.
 */
import { z } from 'zod';
import { ServerConfigSchema, SettingsPatchSchema, SettingsSchema } from './config.js';
import { EventFilterSchema, HubEventSchema, UpstreamStatusSchema } from './events.js';
import { eventsApi } from './api-events.js';
import { spillApi } from './api-spill.js';
import { policyApi } from './api-policy.js';
import { clientsApi } from './api-clients.js';
import { compressApi } from './api-compress.js';
import { registryApi } from './api-registry.js';

export const ToolSummarySchema = z.object({
  /** The name exposed to clients (namespaced). */
  name: z.string(),
  /** The upstream's own name. */
  original: z.string(),
  description: z.string().optional(),
  /** Tokens the tool's schema costs in tools/list. */
  schemaTokens: z.number().int().optional(),
  /**
   * The upstream's own input schema (hidden parameters still in it): the policy editor reads each
   * parameter's type from it, so a hidden value typed "12345" for a text parameter stays text.
   */
  inputSchema: z
    .object({ properties: z.record(z.string(), z.unknown()).optional(), additionalProperties: z.unknown().optional() })
    .passthrough()
    .optional(),
});
export type ToolSummary = z.infer<typeof ToolSummarySchema>;

/** An HTTP or SSE server's OAuth sign-in (issue 15): 'none' for servers that never asked for one. */
export const UpstreamAuthSchema = z.object({
  state: z.enum(['none', 'signed-in', 'needs-sign-in']),
  /** While a sign-in is needed: the last authorization URL made for it (a fresh one comes from upstreams.signIn). */
  authorizationUrl: z.string().optional(),
  /** While a sign-in is needed: why the last one failed in the browser (access denied, expired…), in words for the card. */
  failure: z.string().optional(),
  /** While signed in: a tool needs more access than the sign-in gave (a step-up); Sign in asks for it. */
  notice: z.string().optional(),
});
export type UpstreamAuth = z.infer<typeof UpstreamAuthSchema>;

export const ListProblemSchema = z.object({ list: z.enum(['resources', 'prompts', 'refresh']), message: z.string() });
export type ListProblem = z.infer<typeof ListProblemSchema>;

export const UpstreamInfoSchema = z.object({
  id: z.string(),
  config: ServerConfigSchema,
  status: UpstreamStatusSchema,
  error: z.string().optional(),
  tools: z.number().int(),
  resources: z.number().int(),
  prompts: z.number().int(),
  stderrTail: z.array(z.string()),
  /** Upstream serverInfo, once connected. */
  serverInfo: z.object({ name: z.string(), version: z.string() }).optional(),
  restarts: z.number().int(),
  auth: UpstreamAuthSchema.optional(),
  /** Names the stored config: an edit sends it back with upstreams.update, so a change made elsewhere since is not undone. */
  revision: z.string().optional(),
  /**
   * Lists the server declares but refused when asked (served empty to apps), or a refresh of its lists that
   * failed (the lists from before stay), each with the server's message; absent when there is none.
   */
  listProblems: z.array(ListProblemSchema).optional(),
});
export type UpstreamInfo = z.infer<typeof UpstreamInfoSchema>;

export const SessionInfoSchema = z.object({
  id: z.string(),
  transport: z.enum(['http', 'stdio', 'bridge']),
  client: z.string().optional(),
  clientVersion: z.string().optional(),
  openedAt: z.string(),
  lastActivity: z.string(),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

export const StatusSchema = z.object({
  version: z.string(),
  endpoint: z.string(),
  dataDir: z.string(),
  configFile: z.string(),
  /** Where env and header values are kept (issue 15): the OS keychain, or the encrypted file in the data folder. */
  secrets: z.object({ store: z.enum(['keychain', 'encrypted-file']) }).optional(),
  paused: z.boolean(),
  upstreams: z.array(UpstreamInfoSchema),
  sessions: z.array(SessionInfoSchema),
  tools: z.number().int(),
});
export type Status = z.infer<typeof StatusSchema>;

const empty = z.object({}).strict();
const serverIdReq = z.object({ id: z.string().min(1) });

function method<Req extends z.ZodType, Res extends z.ZodType>(req: Req, res: Res) {
  return { req, res };
}

/** Every control method. Names are `area.verb`; the HTTP transport serves POST /api/<name>. */
export const api = {
  status: method(empty, StatusSchema),
  'upstreams.list': method(empty, z.array(UpstreamInfoSchema)),
  'upstreams.add': method(
    z.object({ id: z.string().optional(), name: z.string().optional(), config: ServerConfigSchema }),
    z.object({ id: z.string() }),
  ),
  /**
   * Replaces a server's config. `revision`: the one upstreams.list showed when the edit started; if the
   * server was changed since, the update is refused with `conflict` (without it, the config is saved as sent).
   */
  'upstreams.update': method(z.object({ id: z.string(), config: ServerConfigSchema, revision: z.string().optional() }), z.object({ id: z.string() })),
  /** Switches a server on or off; the rest of its config stays as stored. */
  'upstreams.setEnabled': method(z.object({ id: z.string().min(1), enabled: z.boolean() }), z.object({ id: z.string() })),
  /** `undoable`: upstreams.undoRemove can put it back (for a few minutes, while the hub runs). */
  'upstreams.remove': method(serverIdReq, z.object({ removed: z.boolean(), undoable: z.boolean().optional() })),
  /** Adds back a server removed a moment ago, with its secret values and sign-in. */
  'upstreams.undoRemove': method(serverIdReq, z.object({ id: z.string() })),
  'upstreams.restart': method(serverIdReq, z.object({ status: UpstreamStatusSchema })),
  /** Starts a sign-in: open the URL in a browser; the redirect back to the hub finishes it. */
  'upstreams.signIn': method(
    serverIdReq,
    z.object({
      authorizationUrl: z.string(),
      /** Desktop app: its main process already opened the URL in the system browser (the window must not open it again). */
      openedInBrowser: z.boolean().optional(),
    }),
  ),
  /** Cancels a sign-in waiting for its browser: a redirect that comes back later is refused. `cancelled`: one was waiting. */
  'upstreams.cancelSignIn': method(serverIdReq, z.object({ cancelled: z.boolean() })),
  /** Forgets the server's tokens (revoked where it supports RFC 7009); it then needs a sign-in. */
  'upstreams.signOut': method(serverIdReq, z.object({ revoked: z.boolean() })),
  'upstreams.test': method(
    // `id`: the server being edited, whose stored values stand in for the masked ones (`***`) sent back.
    z.object({ config: ServerConfigSchema, id: z.string().optional() }),
    z.object({
      ok: z.boolean(),
      error: z.string().optional(),
      serverInfo: z.object({ name: z.string(), version: z.string() }).optional(),
      tools: z.array(ToolSummarySchema),
      stderrTail: z.array(z.string()),
      durationMs: z.number(),
    }),
  ),
  'upstreams.tools': method(serverIdReq, z.array(ToolSummarySchema)),
  'settings.get': method(empty, SettingsSchema),
  'settings.set': method(SettingsPatchSchema, SettingsSchema),
  'events.query': method(EventFilterSchema, z.array(HubEventSchema)),
  ...eventsApi,
  'sessions.list': method(empty, z.array(SessionInfoSchema)),
  ...spillApi,
  ...policyApi,
  ...clientsApi,
  ...compressApi,
  ...registryApi,
} as const;

export type Api = typeof api;
export type MethodName = keyof Api;
export type Req<M extends MethodName> = z.input<Api[M]['req']>;
export type Res<M extends MethodName> = z.infer<Api[M]['res']>;

/** What crosses a boundary: a value, or an error with a stable code and (when it is about input) the field. */
export type ApiResult<T> = { ok: true; value: T } | { ok: false; code: ApiErrorCode; message: string; field?: string };
export type ApiErrorCode = 'invalid' | 'not_found' | 'conflict' | 'unavailable' | 'internal' | 'unauthorized';

export const ApiErrorSchema = z.object({
  ok: z.literal(false),
  code: z.enum(['invalid', 'not_found', 'conflict', 'unavailable', 'internal', 'unauthorized']),
  message: z.string(),
  field: z.string().optional(),
});

/** Pushed to subscribers (SSE in the browser, IPC in Electron). */
export const PushedEventSchema = HubEventSchema;

export function isMethodName(name: string): name is MethodName {
  return Object.prototype.hasOwnProperty.call(api, name);
}

/**
 * A server's entry in the config: its id, the three transports (stdio, Streamable HTTP, SSE), secret
 * references and secret command-line arguments. Runtime-neutral: no node:*, no electron, no DOM.
 */
import { z } from 'zod';

/**
 * Server ids become tool-name prefixes, so they are limited to what every client accepts. `__proto__` is
 * refused: as a key of a plain object it sets the prototype instead of adding the server.
 */
export const SERVER_ID_PATTERN = /^(?!__proto__$)[A-Za-z0-9_-]{1,40}$/;

/** A server id as the config's `servers` map keys it. */
export const serverId = z.string().regex(SERVER_ID_PATTERN, 'use 1-40 letters, digits, "_" or "-"');
/** Env values or headers: names to strings. */
export const stringMap = z.record(z.string(), z.string());

/**
 * An env or header value kept in the secret store (issue 15): config.json holds this exact string in its
 * place, never the value (`"env": { "GITHUB_PAT": "<secret>" }`). The hub writes it when a server is
 * added or updated and when it moves plain values at start; a server start reads the value from the store.
 */
export const SECRET_REF = '<secret>';

/**
 * A command-line word that holds a secret (a registry entry or a bundle put a key in the arguments):
 * `args` holds `${SPILLWAY_SECRET_ARG_<n>}` in its place and the server's env holds the word under that
 * name — a secret like any env value, so in the store, not in config.json. The hub puts the word back as
 * it starts the server.
 */
export const secretArgName = (n: number) => `SPILLWAY_SECRET_ARG_${n}`;
const SECRET_ARG_NAME = /^SPILLWAY_SECRET_ARG_\d+$/;
const SECRET_ARG = /^\$\{(SPILLWAY_SECRET_ARG_\d+)\}$/;

/** Whether an env name carries a secret argument (see secretArgName). */
export const isSecretArgName = (name: string): boolean => SECRET_ARG_NAME.test(name);

/** The args with each secret-argument placeholder replaced by its value from `env` (left as written when env has none). */
export function expandSecretArgs(args: readonly string[], env: Readonly<Record<string, string>>): string[] {
  return args.map((arg) => {
    const name = SECRET_ARG.exec(arg)?.[1];
    return name !== undefined && Object.hasOwn(env, name) ? env[name]! : arg;
  });
}

const serverCommon = {
  /** Disabled servers are kept in the config but not started. */
  enabled: z.boolean().default(true),
  /** Prefix tool and prompt names with `<id>__`. Off only for one-server setups. */
  prefix: z.boolean().default(true),
  /** Per-upstream request timeout (ms), reset by progress. Falls back to settings.requestTimeoutMs. */
  timeoutMs: z.number().int().positive().max(3_600_000).optional(),
  /** Optional human label shown in the UI. */
  label: z.string().max(200).optional(),
  /**
   * When the server starts: with the hub, or on its first call (its lists kept from the last run serve
   * until then). Unset: on first use for stdio servers whose lists are kept, else always (issue 18).
   */
  startMode: z.enum(['always', 'on-first-use']).optional(),
  /** Minutes without a call after which a server started on first use is stopped (0 = never; unset: 10). */
  idleStopMinutes: z.number().min(0, 'use 0 (never) or more minutes').max(10_080, 'use at most 10080 minutes (a week)').optional(),
};

const stdioServer = {
  type: z.literal('stdio'),
  command: z.string().min(1, 'cannot be empty'),
  args: z.array(z.string()).default([]),
  env: stringMap.default({}),
  cwd: z.string().optional(),
  ...serverCommon,
};

/** What an address that is not one is told (after "The URL"). */
const WEB_ADDRESS = 'must be a full web address, such as https://example.com/mcp';

/** An http(s) URL, refused in plain words otherwise. */
export const httpUrl = z
  .string()
  .url(WEB_ADDRESS)
  .refine((u) => /^https?:\/\//i.test(u), 'must start with http:// or https://, such as https://example.com/mcp');

/** A Client ID Metadata Document's URL: https with a path (what the MCP authorization spec asks of it). */
export const clientMetadataUrl = z
  .string()
  .url('must be a full web address, such as https://example.com/client.json')
  .refine((u) => /^https:\/\/[^/]+\/.+/i.test(u), 'must be an https:// address with a path (where the document is hosted)');

/**
 * For servers whose sign-in does not let apps register themselves (issue 15): the client ID of an OAuth
 * app the user made in the service's developer settings (a public client: PKCE, no secret).
 */
const oauthClientId = z.string().trim().min(1, 'enter the client ID, or leave the field empty').max(500).optional();

/** A header name as HTTP allows it (a "token"): no spaces, no letters beyond A-Z, no `:`. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A value of bullets: a mask some list showed, which stands for the stored value (electron/core/control/server-secrets.ts). */
const BULLETS = /^•+$/;

/**
 * What is wrong with a header for a request to carry it (fetch refuses it on every try, naming no field),
 * said after `The header "<name>"`; undefined when it can be sent.
 */
function headerProblem(name: string, value: string): string | undefined {
  if (!HEADER_NAME.test(name)) {
    const bad = [...name].find((c) => !HEADER_NAME.test(c))!;
    const what = /\s/.test(bad) ? 'a space' : `"${bad}"`;
    return `cannot have ${what} in its name: use only the letters A-Z, digits and "-", such as X-Api-Key`;
  }
  if (/[\r\n]/.test(value)) return 'has a line break in its value: put the value on one line';
  if (value.includes('\0')) return 'has a NUL character in its value: type the value again';
  if (BULLETS.test(value)) return 'shows a hidden value (••••) and no value is kept for it: type its value';
  const wide = [...value].find((c) => c.codePointAt(0)! > 0xff);
  if (wide !== undefined) return `has "${wide}" in its value, which a header cannot carry: use only Latin letters, digits and punctuation`;
  return undefined;
}

/** Headers each a request can carry, else refused at `headers.<name>`. */
const SendableHeadersSchema = z.object({
  headers: stringMap.superRefine((headers, ctx) => {
    for (const [name, value] of Object.entries(headers)) {
      if (name === '') {
        ctx.addIssue({ code: 'custom', path: [], message: 'must each have a name: type the missing name, or remove that header' });
        continue;
      }
      const message = headerProblem(name, value);
      if (message !== undefined) ctx.addIssue({ code: 'custom', path: [name], message });
    }
  }),
});

/**
 * The headers of a server about to be saved or tested that a request cannot carry, as an error at
 * `headers.<name>`; undefined when all can be sent. A header `kept` (the stored ones) holds under the
 * same name with the same value, or with bullets (its mask), is not checked: one saved before this
 * check or written by hand fails only that server's start, and must not stop its on/off switch or an
 * edit of its other fields. A new server keeps none, so bullets there are refused: no value stands behind them.
 */
export function unsendableHeaders(headers: Readonly<Record<string, string>>, kept?: Readonly<Record<string, string>>): z.ZodError | undefined {
  const isKept = ([name, value]: [string, string]) =>
    kept !== undefined && Object.hasOwn(kept, name) && (kept[name] === value || BULLETS.test(value));
  const parsed = SendableHeadersSchema.safeParse({ headers: Object.fromEntries(Object.entries(headers).filter((h) => !isKept(h))) });
  return parsed.success ? undefined : parsed.error;
}

/** What a remote server has, over Streamable HTTP or SSE alike. */
const remoteServer = {
  url: httpUrl,
  headers: stringMap.default({}),
  oauthClientId,
  ...serverCommon,
};

/** `scheme://user:password@` at the start of an address: the sign-in, before the first `/`, `?` or `#`. */
const URL_USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i;

/** Whether an address holds a sign-in (`https://me:pw@host/…`), which the server's config moves into a header. */
export function hasUrlSignIn(url: string): boolean {
  return URL_USERINFO.test(url);
}

/** The address with the user name and password in it replaced by `mask` (for copies that must not hold them). */
export function maskUrlSignIn(url: string, mask: string): string {
  return url.replace(URL_USERINFO, (_all, scheme: string, userinfo: string) => (userinfo === '' ? `${scheme}@` : `${scheme}${mask}@`));
}

function decodePart(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The UTF-8 bytes of `text` in base64 (btoa alone takes Latin-1 only). */
function base64Utf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * A user name and password in a remote server's address (`https://me:pw@mcp.example.com/mcp`) become its
 * `Authorization: Basic` header: fetch refuses an address with a sign-in in it, so the server could never
 * be reached as written, and a header value is a secret kept in the secret store, never in config.json.
 * The rest of the address stays as written. An Authorization header set as well is refused, naming the
 * address: one of the two would be dropped.
 */
function moveUrlSignIn<T extends { url: string; headers: Record<string, string> }>(server: T, ctx: z.RefinementCtx): T {
  const found = URL_USERINFO.exec(server.url);
  if (!found) return server;
  const url = found[1]! + server.url.slice(found[0].length);
  const userinfo = found[2]!;
  if (userinfo === '') return { ...server, url };
  if (Object.keys(server.headers).some((name) => name.toLowerCase() === 'authorization')) {
    ctx.addIssue({
      code: 'custom',
      path: ['url'],
      message: 'has a user name and password, and an Authorization header is set too: keep one of them',
    });
    return server;
  }
  const colon = userinfo.indexOf(':');
  const user = decodePart(colon < 0 ? userinfo : userinfo.slice(0, colon));
  const password = colon < 0 ? '' : decodePart(userinfo.slice(colon + 1));
  return { ...server, url, headers: { ...server.headers, Authorization: `Basic ${base64Utf8(`${user}:${password}`)}` } };
}

/** The fields a server of each kind has (what a key in config.json is checked against, for a likely typo). */
export const SERVER_FIELDS: Readonly<Record<'stdio' | 'http' | 'sse', readonly string[]>> = {
  stdio: Object.keys(stdioServer),
  http: ['type', ...Object.keys(remoteServer)],
  sse: ['type', ...Object.keys(remoteServer)],
};

/**
 * A server's config as the control API, the windows and the catalog give it: a field it does not know is
 * refused, named (a misspelt `header` would otherwise be dropped without a word, and the server started
 * without its headers). Its headers are checked where a server is saved or tested (unsendableHeaders),
 * not here: this schema also reads the stored configs the list and the status give, and one stored header
 * a request cannot carry must not make them unreadable.
 */
export const ServerConfigSchema = z.discriminatedUnion('type', [
  z.strictObject(stdioServer),
  z.strictObject({ type: z.literal('http'), ...remoteServer }).transform(moveUrlSignIn),
  z.strictObject({ type: z.literal('sse'), ...remoteServer }).transform(moveUrlSignIn),
]);
export type ServerConfig = z.infer<typeof ServerConfigSchema>;
export type ServerConfigInput = z.input<typeof ServerConfigSchema>;

/**
 * A server's entry as config.json holds it: the same, except that a field it does not know is ignored, as
 * it always was, so a file written by hand with an extra field (a note, a field of another app) still loads;
 * its headers are not checked either (a header fetch refuses fails that server's start, not the whole file).
 */
export const StoredServerConfigSchema = z.discriminatedUnion('type', [
  z.object(stdioServer),
  z.object({ type: z.literal('http'), ...remoteServer }).transform(moveUrlSignIn),
  z.object({ type: z.literal('sse'), ...remoteServer }).transform(moveUrlSignIn),
]);

/**
 * The MCP Registry's `server.json` (schema 2025-12-11, `internal/validators/schemas/2025-12-11.json` of
 * modelcontextprotocol/registry) and the read API's list and detail envelopes (`pkg/api/v0/types.go`), as
 * zod schemas. Field names, required fields and enums follow that schema; unknown fields are dropped, as
 * the registry's own Go structs drop them. Length limits are not checked here: an entry one character over
 * is still worth showing, and the registry enforces them when it is published.
 */
import { z } from 'zod';

export const InputFormatSchema = z.enum(['string', 'number', 'boolean', 'filepath']);
export type InputFormat = z.infer<typeof InputFormatSchema>;

/** `Input`: a value the user may be asked for (or a fixed `value`). */
const inputShape = {
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  format: InputFormatSchema.optional(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
  choices: z.array(z.string()).optional(),
  value: z.string().optional(),
};
export const InputSchema = z.object(inputShape);
export type Input = z.infer<typeof InputSchema>;

/** `InputWithVariables`: `{name}` in `value` is replaced with the variable of that name. */
const withVariables = { ...inputShape, variables: z.record(z.string(), InputSchema).optional() };
export const InputWithVariablesSchema = z.object(withVariables);
export type InputWithVariables = z.infer<typeof InputWithVariablesSchema>;

/** `KeyValueInput`: an environment variable or an HTTP header. */
export const KeyValueInputSchema = z.object({ ...withVariables, name: z.string() });
export type KeyValueInput = z.infer<typeof KeyValueInputSchema>;

const PositionalArgumentSchema = z
  .object({ ...withVariables, type: z.literal('positional'), valueHint: z.string().optional(), isRepeated: z.boolean().optional() })
  .refine((a) => a.value !== undefined || a.valueHint !== undefined, 'a positional argument needs a value or a valueHint');
const NamedArgumentSchema = z.object({ ...withVariables, type: z.literal('named'), name: z.string(), isRepeated: z.boolean().optional() });
export const ArgumentSchema = z.union([PositionalArgumentSchema, NamedArgumentSchema]);
export type Argument = z.infer<typeof ArgumentSchema>;

const httpUrlTemplate = z.string().regex(/^https?:\/\/[^\s]+$/, 'must be an http(s) URL');
const headers = z.array(KeyValueInputSchema).optional();

export const LocalTransportSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('stdio') }),
  z.object({ type: z.literal('streamable-http'), url: httpUrlTemplate, headers }),
  z.object({ type: z.literal('sse'), url: httpUrlTemplate, headers }),
]);

export const RemoteTransportSchema = z.object({
  type: z.enum(['streamable-http', 'sse']),
  url: httpUrlTemplate,
  headers,
  variables: z.record(z.string(), InputSchema).optional(),
});
export type RemoteTransport = z.infer<typeof RemoteTransportSchema>;

export const PackageSchema = z.object({
  /** `npm`, `pypi`, `oci`, `nuget`, `mcpb` (a string in the schema: other values are kept and shown as unsupported). */
  registryType: z.string(),
  registryBaseUrl: z.string().optional(),
  identifier: z.string(),
  version: z.string().optional(),
  fileSha256: z
    .string()
    .regex(/^[a-f0-9]{64}$/)
    .optional(),
  runtimeHint: z.string().optional(),
  transport: LocalTransportSchema,
  runtimeArguments: z.array(ArgumentSchema).optional(),
  packageArguments: z.array(ArgumentSchema).optional(),
  environmentVariables: z.array(KeyValueInputSchema).optional(),
});
export type Package = z.infer<typeof PackageSchema>;

export const IconSchema = z.object({
  src: z.string(),
  mimeType: z.enum(['image/png', 'image/jpeg', 'image/jpg', 'image/svg+xml', 'image/webp']).optional(),
  sizes: z.array(z.string()).optional(),
  theme: z.enum(['light', 'dark']).optional(),
});

export const ServerDetailSchema = z.object({
  name: z.string().regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'must be "namespace/name"'),
  title: z.string().optional(),
  description: z.string(),
  version: z.string(),
  websiteUrl: z.string().optional(),
  repository: z.object({ url: z.string(), source: z.string(), subfolder: z.string().optional(), id: z.string().optional() }).optional(),
  icons: z.array(IconSchema).optional(),
  packages: z.array(PackageSchema).optional(),
  remotes: z.array(RemoteTransportSchema).optional(),
});
export type ServerDetail = z.infer<typeof ServerDetailSchema>;

const OFFICIAL = 'io.modelcontextprotocol.registry/official';

/** One `ServerResponse`: the entry and the registry's own facts about it. */
export const ServerResponseSchema = z.object({
  server: ServerDetailSchema,
  _meta: z
    .object({
      [OFFICIAL]: z
        .object({
          status: z.string().optional(),
          /** Why the entry is deprecated or deleted, in the publisher's or registry's words. */
          statusMessage: z.string().optional(),
          publishedAt: z.string().optional(),
          updatedAt: z.string().optional(),
          isLatest: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
});
export type ServerResponse = z.infer<typeof ServerResponseSchema>;

/** The registry's facts of one response (status, isLatest), if it sent them. */
export function officialMeta(response: ServerResponse) {
  return response._meta?.[OFFICIAL];
}

/** `ServerListResponse`, with items left unparsed: each one is checked on its own (parseServerList). */
const ServerListEnvelopeSchema = z.object({
  servers: z.array(z.unknown()),
  metadata: z.object({ nextCursor: z.string().optional(), count: z.number().optional() }).optional(),
});

export interface ServerList {
  servers: ServerResponse[];
  nextCursor?: string;
  /** Items that did not follow the schema, left out. */
  skipped: number;
}

/** A list answer with every malformed item skipped and counted; throws only when the envelope itself is wrong. */
export function parseServerList(body: unknown): ServerList {
  const envelope = ServerListEnvelopeSchema.parse(body);
  const servers: ServerResponse[] = [];
  let skipped = 0;
  for (const item of envelope.servers) {
    const parsed = ServerResponseSchema.safeParse(item);
    if (parsed.success) servers.push(parsed.data);
    else skipped++;
  }
  const nextCursor = envelope.metadata?.nextCursor;
  return { servers, skipped, ...(nextCursor ? { nextCursor } : {}) };
}

/**
 * The app-wide settings of the Spillway config (its `settings` key): zod schema and defaults, the partial
 * update settings.set takes, and how secrets are masked when settings are shown. Runtime-neutral.
 */
import { z } from 'zod';
import { clientMetadataUrl, httpUrl } from './server-config.js';
import { GlobalPolicyDefaultsSchema, GlobalPolicyPatchSchema, defaultGlobalPolicy } from './policy.js';

export const SpillSettingsSchema = z.object({
  /** What happens to a result over its threshold. */
  action: z.enum(['spill', 'truncate', 'pass']).default('spill'),
  /** Tokens above which a result is spilled; null turns spilling off. */
  thresholdTokens: z.number().int().min(1).max(10_000_000).nullable().default(10_000),
  previewTokens: z.number().int().min(50).max(100_000).default(1_000),
  ttlHours: z
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
  quotaBytes: z
    .number()
    .int()
    .min(1024 * 1024)
    .default(1024 * 1024 * 1024),
});

/** How a secret setting is shown by settings.get; sent back unchanged in settings.set, it keeps the stored value. */
export const MASKED_SECRET = '***';

/**
 * An API key as settings.set takes it: visible ASCII only. A space, line break or invisible character
 * pasted with the key cannot be sent in an HTTP header, and would fail every request as a network error.
 */
const apiKeyText = z
  .string()
  .max(1000)
  .regex(
    /^[\x21-\x7e]*$/,
    'The API key holds a space, a line break, an invisible or a non-ASCII character, which cannot be sent: paste the key again without it.',
  );

/** The OpenAI-compatible endpoint that condenses results of tools whose action is 'compress' (issue 8). */
export const CompressionSettingsSchema = z.object({
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; without it (or a model) 'compress' spills. */
  baseUrl: httpUrl.optional(),
  model: z.string().min(1).max(200).optional(),
  /** A secret: settings.get shows it as `***`. */
  apiKey: z.string().max(1000).optional(),
  /** Whole-request timeout of one compression; past it the result is spilled instead. */
  timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  /** Output budget of a compression when the tool's policy sets none (compressMaxTokens). */
  defaultMaxOutputTokens: z.number().int().min(16).max(100_000).default(1_000),
});
export type CompressionSettings = z.infer<typeof CompressionSettingsSchema>;

export const SettingsSchema = z.object({
  /** Port of the local endpoint; 0 picks a free one at every start. */
  port: z.number().int().min(0).max(65535).default(47821),
  /** Longest exposed tool name (Claude Code shows mcp__spillway__<name>, the API allows 64). */
  toolNameMaxLength: z.number().int().min(16).max(64).default(48),
  requestTimeoutMs: z.number().int().positive().max(3_600_000).default(60_000),
  /** Largest single upstream stdio message accepted (bytes). The SDK's own reader stops at 10 MiB. */
  maxMessageBytes: z
    .number()
    .int()
    .min(1024 * 1024)
    .default(256 * 1024 * 1024),
  /** Days of rotated event-log files kept on disk. */
  logRetentionDays: z.number().int().min(1).max(365).default(14),
  tokenizer: z.enum(['o200k_base', 'cl100k_base']).default('o200k_base'),
  /** While paused, every result passes through untouched. */
  paused: z.boolean().default(false),
  spill: SpillSettingsSchema.default(() => SpillSettingsSchema.parse({})),
  /** App-wide policy switches: dispatch only, the direct-tool cap, the read-only cache, pinning (issue 5). */
  policy: GlobalPolicyDefaultsSchema.default(defaultGlobalPolicy),
  /** The compression model (issue 8). */
  compression: CompressionSettingsSchema.default(() => CompressionSettingsSchema.parse({})),
  /** The MCP Registry the server catalog browses (issue 16); self-hosted and sub-registries speak the same API. */
  registryUrl: httpUrl.default('https://registry.modelcontextprotocol.io'),
  /**
   * Where Spillway's OAuth client metadata document is hosted (issue 15): servers that accept a Client ID
   * Metadata Document sign Spillway in under this URL instead of registering it. Unset: dynamic
   * registration, or the client ID entered per server.
   */
  oauthClientMetadataUrl: clientMetadataUrl.optional(),
});
export type Settings = z.infer<typeof SettingsSchema>;

/**
 * A partial update of the settings: fields without their defaults (zod's `.partial()` would still fill
 * every default in, and saving that would reset what the user did not touch). `spill` may be partial too.
 */
export const SettingsPatchSchema = z
  .object({
    port: SettingsSchema.shape.port.unwrap().optional(),
    toolNameMaxLength: SettingsSchema.shape.toolNameMaxLength.unwrap().optional(),
    requestTimeoutMs: SettingsSchema.shape.requestTimeoutMs.unwrap().optional(),
    maxMessageBytes: SettingsSchema.shape.maxMessageBytes.unwrap().optional(),
    logRetentionDays: SettingsSchema.shape.logRetentionDays.unwrap().optional(),
    tokenizer: SettingsSchema.shape.tokenizer.unwrap().optional(),
    paused: SettingsSchema.shape.paused.unwrap().optional(),
    registryUrl: SettingsSchema.shape.registryUrl.unwrap().optional(),
    /** An empty string clears it. */
    oauthClientMetadataUrl: clientMetadataUrl.or(z.literal('')).optional(),
    spill: z
      .object({
        action: SpillSettingsSchema.shape.action.unwrap().optional(),
        thresholdTokens: SpillSettingsSchema.shape.thresholdTokens.unwrap().optional(),
        previewTokens: SpillSettingsSchema.shape.previewTokens.unwrap().optional(),
        ttlHours: SpillSettingsSchema.shape.ttlHours.unwrap().optional(),
        quotaBytes: SpillSettingsSchema.shape.quotaBytes.unwrap().optional(),
      })
      .strict()
      .optional(),
    policy: GlobalPolicyPatchSchema.optional(),
    /** Field by field; an empty string clears baseUrl, model or apiKey; `***` keeps the stored apiKey. */
    compression: z
      .object({
        baseUrl: httpUrl.or(z.literal('')).optional(),
        model: z.string().max(200).optional(),
        apiKey: apiKeyText.optional(),
        timeoutMs: CompressionSettingsSchema.shape.timeoutMs.unwrap().optional(),
        defaultMaxOutputTokens: CompressionSettingsSchema.shape.defaultMaxOutputTokens.unwrap().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;

/** Applies a patch; `spill`, `policy` and `compression` are merged field by field. */
export function applySettingsPatch(settings: Settings, patch: SettingsPatch): unknown {
  const { oauthClientMetadataUrl, ...rest } = patch;
  const cleared = oauthClientMetadataUrl === '';
  const { oauthClientMetadataUrl: _kept, ...withoutUrl } = settings;
  return {
    ...(cleared ? withoutUrl : settings),
    ...rest,
    ...(oauthClientMetadataUrl ? { oauthClientMetadataUrl } : {}),
    spill: { ...settings.spill, ...(patch.spill ?? {}) },
    policy: { ...settings.policy, ...(patch.policy ?? {}) },
    compression: mergeCompression(settings.compression, patch.compression ?? {}),
  };
}

function mergeCompression(current: CompressionSettings, patch: NonNullable<SettingsPatch['compression']>): CompressionSettings {
  const next: Record<string, unknown> = { ...current, ...patch };
  // The masked key a settings form sends back unchanged keeps the stored one.
  if (patch.apiKey === MASKED_SECRET) next.apiKey = current.apiKey;
  for (const key of ['baseUrl', 'model', 'apiKey'] as const) if (next[key] === '' || next[key] === undefined) delete next[key];
  return next as CompressionSettings;
}

/** The settings as lists and UIs show them: secrets replaced by `***`. */
export function maskSettingsSecrets(settings: Settings): Settings {
  if (!settings.compression.apiKey) return settings;
  return { ...settings, compression: { ...settings.compression, apiKey: MASKED_SECRET } };
}

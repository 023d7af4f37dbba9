/** Control contract: the catalog of servers from the MCP Registry (issue 16). */
import { z } from 'zod';

/** Set when the registry could not be reached and an earlier answer is shown instead. */
export const RegistryCachedSchema = z.object({
  /** When that answer was received (ISO time). */
  at: z.string(),
  /** "Cached, from <time>: ..." in plain words. */
  notice: z.string(),
  /** Nothing was kept either: only the servers that come with Spillway were searched. */
  builtIn: z.boolean().optional(),
});

export const RegistryServerSchema = z.object({
  name: z.string(),
  version: z.string(),
  title: z.string().optional(),
  description: z.string(),
  icon: z.object({ src: z.string(), mimeType: z.string().optional(), theme: z.enum(['light', 'dark']).optional() }).optional(),
  websiteUrl: z.string().optional(),
  repository: z.string().optional(),
  /** How it can be run: `npm`, `pypi`, `oci`, `nuget`, `mcpb` (packages) and `remote`. */
  kinds: z.array(z.string()),
  /** The registry's status: `active`, `deprecated` or `deleted`. */
  status: z.string().optional(),
  /** Why it is deprecated or deleted, in the registry's words (its statusMessage); only with such a status. */
  statusMessage: z.string().max(500).optional(),
});
export type RegistryServer = z.infer<typeof RegistryServerSchema>;

/** Whether the program a package needs is on this computer, and if not, what to install. */
export const RegistryRuntimeSchema = z.object({
  command: z.string(),
  present: z.boolean(),
  missing: z.string().optional(),
});
export type RegistryRuntime = z.infer<typeof RegistryRuntimeSchema>;

/** One way to run the server: one of its packages, or one of its remotes. */
export const RegistryOptionSchema = z.object({
  kind: z.enum(['package', 'remote']),
  index: z.number().int(),
  /** e.g. "npm package airtable-mcp-server 1.7.3", "Remote server (Streamable HTTP)". */
  label: z.string(),
  /** Exactly what will run or where it will connect, in plain words. */
  summary: z.string(),
  supported: z.boolean(),
  /** Why Spillway cannot add it yet (when not supported). */
  reason: z.string().optional(),
  runtime: RegistryRuntimeSchema.optional(),
  /** The npm package Spillway installs into its data folder when this option is added. */
  installs: z.object({ name: z.string(), version: z.string().optional() }).optional(),
  /** Servers already added that run this npm package from the data folder, with the version they run. */
  installed: z.array(z.object({ id: z.string(), version: z.string() })).optional(),
  /** An MCPB bundle: its form downloads, checks and installs it first, to read the bundle's own settings. */
  bundle: z.boolean().optional(),
});
export type RegistryOption = z.infer<typeof RegistryOptionSchema>;

export const RegistryFormFieldSchema = z.object({
  /** The key of its value in `registry.add`'s `values`. */
  key: z.string(),
  label: z.string(),
  description: z.string().optional(),
  /** `settings`: an MCPB bundle's own settings (its manifest's user_config). */
  group: z.enum(['arguments', 'environment', 'headers', 'address', 'settings']),
  required: z.boolean(),
  /** Masked in the form; kept as a secret, never shown again. */
  secret: z.boolean(),
  input: z.enum(['text', 'number', 'boolean', 'filepath', 'select']),
  choices: z.array(z.string()).optional(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
  /** Several values allowed, one per line. */
  repeated: z.boolean().optional(),
  /** Bounds of a number field. */
  min: z.number().optional(),
  max: z.number().optional(),
});
export type RegistryFormField = z.infer<typeof RegistryFormFieldSchema>;

const entryRef = {
  name: z.string().min(1).max(200),
  version: z.string().min(1).max(255).optional(),
  package: z.number().int().min(0).optional(),
  remote: z.number().int().min(0).optional(),
};
/** One package or one remote of an entry, never both. */
const oneOption = (req: { package?: number; remote?: number }, ctx: z.RefinementCtx) => {
  if ((req.package === undefined) === (req.remote === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['package'], message: 'give either a package index or a remote index' });
  }
};

export const registryApi = {
  /** A page of the registry's latest versions; every word of `query` is in the server's name, title or description. */
  'registry.search': {
    req: z.object({ query: z.string().max(200).optional(), cursor: z.string().max(1000).optional() }),
    res: z.object({
      servers: z.array(RegistryServerSchema),
      nextCursor: z.string().optional(),
      /** Entries in this page that did not follow the registry's schema, left out. */
      skipped: z.number().int(),
      cached: RegistryCachedSchema.optional(),
    }),
  },
  /** One entry's detail page: what it is and each way to run it. */
  'registry.get': {
    req: z.object({ name: entryRef.name, version: entryRef.version }),
    res: z.object({ server: RegistryServerSchema, options: z.array(RegistryOptionSchema), cached: RegistryCachedSchema.optional() }),
  },
  /** Every published version of one entry, newest first (the detail page's version picker). */
  'registry.versions': {
    req: z.object({ name: entryRef.name }),
    res: z.object({
      versions: z.array(
        z.object({
          version: z.string(),
          latest: z.boolean(),
          status: z.string().optional(),
          statusMessage: z.string().max(500).optional(),
          publishedAt: z.string().optional(),
        }),
      ),
      cached: RegistryCachedSchema.optional(),
    }),
  },
  /** The form for one package or remote, generated from its declared arguments, variables and headers. */
  'registry.form': {
    req: z.object(entryRef).superRefine(oneOption),
    res: z.object({ option: RegistryOptionSchema, fields: z.array(RegistryFormFieldSchema) }),
  },
  /** Adds the server from the filled form (as `upstreams.add` does); secret values are kept apart. */
  'registry.add': {
    req: z
      .object({
        ...entryRef,
        values: z.record(z.string(), z.string()).default({}),
        id: z.string().optional(),
        label: z.string().max(200).optional(),
      })
      .superRefine(oneOption),
    res: z.object({
      id: z.string(),
      /** What was added, secrets masked. */
      summary: z.string(),
      /** Where the secret values went: none given, the secret store, or (no store yet) the config file. */
      secrets: z.enum(['none', 'secret-store', 'config']),
      /** The npm package or MCPB bundle (its manifest's name) installed into the data folder for it, run with the app's own runtime. */
      installed: z.object({ name: z.string(), version: z.string() }).optional(),
    }),
  },
  /** The npm package or MCPB bundle an upstream runs from the data folder, and whether a newer version is published. */
  'registry.installed': {
    req: z.object({ id: z.string().min(1) }),
    res: z.object({
      name: z.string(),
      version: z.string(),
      /** The registry's latest version; absent when the registry could not be asked (then `notice` says why). */
      latest: z.string().optional(),
      updateAvailable: z.boolean(),
      notice: z.string().optional(),
      /** The version kept from before its last Update, which `registry.goBack` switches it back to; absent when it cannot go back. */
      previous: z.string().optional(),
    }),
  },
  /** Installs the latest version of the upstream's npm package or bundle, switches the upstream to it, removes the old one. */
  'registry.update': {
    req: z.object({ id: z.string().min(1) }),
    res: z.object({ id: z.string(), name: z.string(), version: z.string(), previous: z.string(), updated: z.boolean() }),
  },
  /**
   * Switches the upstream back to the version it ran before its last Update (kept in the data folder), its
   * settings, secrets and policies kept; the newer version is offered as an Update again. `version`: the
   * one it runs now; `previous`: the one it went back from.
   */
  'registry.goBack': {
    req: z.object({ id: z.string().min(1) }),
    res: z.object({ id: z.string(), name: z.string(), version: z.string(), previous: z.string() }),
  },
} as const;

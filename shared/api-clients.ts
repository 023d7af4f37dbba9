/** Control contract: one-click client configuration (issue 6). */
import { z } from 'zod';

export const CLIENT_IDS = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'windsurf',
  'cline',
  'zed',
  'lm-studio',
  'gemini-cli',
  'codex',
] as const;
export const ClientIdSchema = z.enum(CLIENT_IDS);
export type ClientIdName = z.infer<typeof ClientIdSchema>;

export const ClientInfoSchema = z.object({
  id: ClientIdSchema,
  displayName: z.string(),
  /** Its config folder exists (the app is installed or was used). */
  installed: z.boolean(),
  configPresent: z.boolean(),
  configPath: z.string(),
  /**
   * Spillway has a change of its own to this client's files that Restore can undo (a backup not undone yet):
   * Restore backup is offered only then, also when the file is gone (Disconnect deleted a file Spillway created).
   */
  restorable: z.boolean(),
  /**
   * Spillway's entry: absent, current, stale (wrong port/token/path), taken (a server named "spillway" that
   * Spillway did not add: it is left alone), or the file could not be read.
   */
  state: z.enum(['absent', 'current', 'stale', 'taken', 'error']),
  differs: z.array(z.string()).optional(),
  error: z.string().optional(),
  restartRequired: z.boolean(),
  restartHint: z.string().optional(),
  /** How Spillway's entry reaches the hub: the stdio bridge or the HTTP URL. */
  kind: z.enum(['stdio', 'http']),
  /** Last time a session of this client talked to the hub (from this run's sessions or the ledger). */
  lastSeen: z.string().optional(),
  /** Servers in its file other than Spillway. */
  servers: z.number().int(),
});
export type ClientInfo = z.infer<typeof ClientInfoSchema>;

const idReq = z.object({ id: ClientIdSchema });

export const ChangeResultSchema = z.object({
  file: z.string(),
  changed: z.boolean(),
  /** Every file changed, when the change wrote several (Cline keeps its servers in two); `file` is the first. */
  files: z.array(z.string()).optional(),
  backup: z.string().optional(),
  /**
   * The files Disconnect deleted instead of writing them: Spillway had created them at Connect and nothing
   * else was in them (Restore brings them back). Absent: none.
   */
  deleted: z.array(z.string()).optional(),
  restartRequired: z.boolean(),
  restartHint: z.string().optional(),
});

/** Names in a sentence: "a", "a and b", "a, b and c". */
function listed(names: readonly string[]): string {
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * What a Disconnect that deleted files says, in the window and `spillway clients disconnect` alike: "Disconnected
 * Cursor: deleted <file> (Spillway had created it; Restore brings it back)." and the files it updated besides
 * (Cline keeps its servers in two). Undefined when it deleted none.
 */
export function deletedNote(app: string, change: { file: string; files?: string[]; deleted?: string[] }): string | undefined {
  const deleted = change.deleted ?? [];
  if (deleted.length === 0) return undefined;
  const updated = (change.files && change.files.length > 1 ? change.files : [change.file]).filter((f) => !deleted.includes(f));
  const them = deleted.length > 1 ? 'them' : 'it';
  return (
    `Disconnected ${app}: deleted ${listed(deleted)} (Spillway had created ${them}; Restore brings ${them} back)` +
    `${updated.length > 0 ? `; updated ${listed(updated)}` : ''}.`
  );
}

export const ImportCandidateSchema = z.object({
  name: z.string(),
  kind: z.enum(['stdio', 'http', 'sse']),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  url: z.string().optional(),
  /** The same server (command, args and env, or URL and headers) is already a Spillway upstream. */
  alreadyImported: z.boolean(),
  /** Opaque; equal for the same server (as alreadyImported compares them) in any client's file. */
  sameAs: z.string(),
  /**
   * Why Spillway cannot run it, in plain words: it uses a variable only the app fills in (VS Code's
   * `${workspaceFolder}`, an app's `${VAR}`). It stays in the app's file; importing it is refused.
   */
  clientOnly: z.string().optional(),
});

export const clientsApi = {
  'clients.list': { req: z.object({}).strict(), res: z.array(ClientInfoSchema) },
  /** The exact entry that would be written (secrets masked), for the user's consent. Writes nothing. */
  'clients.preview': {
    req: z.object({ id: ClientIdSchema, replace: z.array(z.string()).optional() }),
    res: z.object({
      file: z.string(),
      action: z.enum(['add', 'update', 'none']),
      entryText: z.string(),
      removes: z.array(z.string()),
      notes: z.array(z.string()),
      restartRequired: z.boolean(),
    }),
  },
  /**
   * What Disconnect removes: Spillway's entry as it stands in the client's file now (secrets masked), not
   * the one Connect would write. Writes nothing and makes no token, so it works whatever the hub's port.
   */
  'clients.previewDisconnect': {
    req: idReq,
    res: z.object({
      file: z.string(),
      /** Absent when the file has no Spillway entry: there is nothing to remove. */
      entryText: z.string().optional(),
      /** The files Disconnect deletes: ones Spillway created at Connect that hold nothing else (absent: none). */
      deletes: z.array(z.string()).optional(),
      /** Warnings for the user, as the connect preview gives (Codex: the whole file is written anew, losing its comments). */
      notes: z.array(z.string()).optional(),
      restartRequired: z.boolean(),
    }),
  },
  'clients.connect': { req: idReq, res: ChangeResultSchema },
  'clients.disconnect': { req: idReq, res: ChangeResultSchema },
  'clients.importCandidates': { req: idReq, res: z.array(ImportCandidateSchema) },
  /** Adds the chosen servers as upstreams; with `replace`, also swaps them for the one Spillway entry in the client's file. */
  'clients.import': {
    req: z.object({ id: ClientIdSchema, names: z.array(z.string()).min(1), replace: z.boolean().default(false) }),
    res: z.object({ imported: z.array(z.string()), skipped: z.array(z.string()), change: ChangeResultSchema.optional() }),
  },
  /**
   * Undoes the last change the user made to that client's file through Spillway (connect, disconnect, import
   * with replace); Spillway's own repairs of its entry since then are undone with it. Byte for byte when
   * nothing else wrote the file since; otherwise only Spillway's own change is taken back, the rest kept
   * (refused, `conflict`, when that would overwrite something changed since).
   */
  'clients.restore': {
    req: idReq,
    res: z.object({
      file: z.string(),
      /** Every file given back, when the change wrote several (Cline); `file` is one of them. */
      files: z.array(z.string()).optional(),
      /** The file did not exist before that change, so it was deleted. */
      deleted: z.boolean(),
      /** The file changed after Spillway's change (another program, the user): those changes were kept. */
      changedSinceWrite: z.boolean(),
      restartRequired: z.boolean(),
      /** How the app picks up the restored file (restart it, or press Refresh, or nothing to do). */
      restartHint: z.string(),
    }),
  },
  /**
   * What any other MCP client needs to use Spillway: the address with its key (`?token=`), and the same
   * key as an Authorization header for clients that can set one. The key is a token of its own (client
   * id `other`), made on first use. The answer holds a secret: the window shows it only when asked.
   * `renew`: the key is replaced: the old one is revoked (refused from now on, as Disconnect revokes an
   * app's token) and a new one made, for a key that leaked.
   */
  'clients.otherAccess': {
    req: z.object({ renew: z.boolean().optional() }).strict(),
    res: z.object({
      url: z.string(),
      urlWithKey: z.string(),
      header: z.string(),
      /** Why the address will not last (the port changes at the next start), in plain words. */
      unstable: z.string().optional(),
    }),
  },
  /** Checks every connected client's entry and repairs stale ones (with a backup). */
  'clients.repair': {
    req: z.object({}).strict(),
    res: z.array(z.object({ id: ClientIdSchema, repaired: z.boolean(), restartHint: z.string().optional(), error: z.string().optional() })),
  },
} as const;

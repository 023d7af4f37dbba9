/**
 * A client's config file that cannot be parsed: it is never written. Names the file, the position and what
 * is wrong there in words, says nothing was changed, and what to do (fix it; where Spillway changed the file
 * before, the window's Restore backup, or the CLI's `clients restore`, goes back to the copy from before that).
 */
export class ConfigParseError extends Error {
  override readonly name = 'ConfigParseError';
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(
      (line === undefined
        ? `There is a mistake in ${file}: ${reason}.`
        : `There is a mistake in ${file} at line ${line}, column ${column}: ${reason}.`) +
        " Spillway left the file untouched. Fix it in a text editor, then try again. If Spillway changed this file before, Restore backup on its card goes back to the copy from before Spillway's last change.",
    );
  }
}

/** The file parses, but a key Spillway must edit holds something else than expected (e.g. a list). */
export class ConfigShapeError extends Error {
  override readonly name = 'ConfigShapeError';
  constructor(
    readonly file: string,
    readonly key: string,
    readonly found: string,
  ) {
    super(`Cannot edit ${file}: "${key}" is ${found}, not a table of servers. The file was left as it is.`);
  }
}

/** The file (or its folder) cannot be written: read-only, a path through a regular file, no permission. */
export class ConfigWriteError extends Error {
  override readonly name = 'ConfigWriteError';
  constructor(
    readonly file: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Cannot write ${file}: ${reason}. Nothing was changed.`, options);
  }
}

/** The file kept changing under us (another program rewriting it) while we tried to apply our edit. */
export class ConfigBusyError extends Error {
  override readonly name = 'ConfigBusyError';
  constructor(readonly file: string) {
    super(`${file} kept changing while Spillway tried to edit it; nothing was changed. Try again.`);
  }
}

/** A client that cannot take this kind of entry (Claude Desktop's file has no URL servers). */
export class UnsupportedEntryError extends Error {
  override readonly name = 'UnsupportedEntryError';
  constructor(
    readonly client: string,
    readonly kind: string,
  ) {
    super(`${client} cannot use a ${kind} entry.`);
  }
}

/** Nothing to restore for this client. */
export class NoBackupError extends Error {
  override readonly name = 'NoBackupError';
  constructor(readonly client: string) {
    super(`There is no earlier version of ${client}'s configuration to restore.`);
  }
}

/**
 * Restore cannot take back Spillway's change in a file changed since (a server it would put back was added
 * again differently, a "spillway" server is now the user's own): says what changed and what to do.
 */
export class RestoreConflictError extends Error {
  override readonly name = 'RestoreConflictError';
}

/** The file exists but cannot be read (no permission, a folder in its place, not UTF-8 text). */
export class ConfigReadError extends Error {
  override readonly name = 'ConfigReadError';
  constructor(
    readonly file: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Cannot read ${file}: ${reason}. The file was left as it is.`, options);
  }
}

/**
 * The client's file has a server named "spillway" that no Spillway wrote (another program of that name the
 * user added): connect does not replace it and disconnect does not remove it.
 */
export class ForeignEntryError extends Error {
  override readonly name = 'ForeignEntryError';
  constructor(
    readonly client: string,
    readonly file: string,
    action: 'connect' | 'disconnect',
  ) {
    super(
      action === 'connect'
        ? `${client} already has a server named “spillway” that Spillway did not add (in ${file}). ` +
            `Rename or remove it in ${client}'s settings, then connect again.`
        : `${client}'s server named “spillway” was not added by Spillway (in ${file}), so Spillway leaves it as it is. ` +
            `Remove it in ${client}'s settings if you no longer want it.`,
    );
  }
}

/**
 * A key on the way to the servers (`mcpServers`, or a server's name in it) appears more than once: the app
 * reads only one of them, so Spillway cannot tell which one to change. A mistake in the file like a syntax
 * error (answered as one), naming the lines and the next step.
 */
export class DuplicateKeyError extends ConfigParseError {
  constructor(file: string, key: string, at: readonly { line: number; column: number }[]) {
    const lines = at.map((p) => p.line);
    const times = lines.length === 2 ? 'twice' : `${lines.length} times`;
    const where = `${lines.slice(0, -1).join(', ')} and ${lines[lines.length - 1]}`;
    super(
      file,
      `"${key}" is in it ${times} (lines ${where}), and an app reads only one of them, so Spillway cannot tell which one to ` +
        `change; merge them into one "${key}"`,
      at[1].line,
      at[1].column,
    );
  }
}

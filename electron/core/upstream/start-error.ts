/**
 * Why a stdio server could not start, in words a user can act on: the error `start()` rejects with, the
 * check of the working folder, and the "program not found" message (also used by connect-error.ts).
 */
import { stat } from 'node:fs/promises';

/**
 * Starting the server failed; the message is meant for the user as is. `code`: 'ENOENT' (command not
 * found), 'EACCES' (not executable), 'BAD_CWD' (working directory missing), else the spawn errno code.
 */
export class UpstreamStartError extends Error {
  override readonly name = 'UpstreamStartError';
  constructor(
    message: string,
    readonly code: string | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Rejects with a BAD_CWD UpstreamStartError unless `cwd` is an existing folder. */
export async function assertDirectory(cwd: string): Promise<void> {
  let isDirectory = false;
  try {
    isDirectory = (await stat(cwd)).isDirectory();
  } catch {
    // reported below
  }
  // Not 'ENOENT': callers map that code to notFoundMessage.
  if (!isDirectory) throw new UpstreamStartError(`working directory does not exist: "${cwd}"`, 'BAD_CWD');
}

/**
 * A server's program that is not on this computer, in words a non-developer can act on. A command with
 * spaces is often a whole command line (`node /srv/index.js`, as READMEs print it) looked up as one name.
 */
export function notFoundMessage(command: string): string {
  const [program, ...rest] = command.trim().split(/\s+/);
  if (rest.length > 0) {
    return `Spillway could not find the program "${command}" on this computer. If the program is "${program}", keep only that in the server's command and put the words after it in Arguments, one per line; if not, check the program's path.`;
  }
  return `Spillway could not find the program "${command}" on this computer. Install it, or enter its full path as the server's command.`;
}

/** The UpstreamStartError for a spawn that failed: not found, not executable, or the spawn error as is. */
export function describeStartError(error: unknown, command: string): Error {
  const code = (error as { code?: unknown } | null)?.code;
  const errno = typeof code === 'string' ? code : undefined;
  if (errno === 'ENOENT') return new UpstreamStartError(notFoundMessage(command), errno, { cause: error });
  if (errno === 'EACCES') {
    return new UpstreamStartError(`command is not executable: "${command}" (check its permissions)`, errno, { cause: error });
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new UpstreamStartError(`could not start "${command}": ${detail}`, errno, { cause: error });
}

/**
 * A write the disk refused (full, over quota, read-only, no permission), told in words: which folder's disk,
 * that nothing was changed, and what to do. The app's token and the backups go in the data folder, the new
 * text in the app's own folder, so the message names the folder of the file that failed. The wording is
 * files/disk-problem.ts's, as a settings save's; the error is named like a client file that cannot be written, so
 * the control API answers it alike (`unavailable`, matched by name).
 */
import { dirname } from 'node:path';
import { diskProblem, errorCode } from '../files/disk-problem.js';

export class DiskRefusedError extends Error {
  override readonly name = 'ConfigWriteError';
}

/**
 * `err` in words when the disk refused writing `file` (in `folder`); undefined for any other error. `step`:
 * the part of the write that failed when it was not `file` itself (its backup, in another folder).
 */
export function diskRefusal(err: unknown, file: string, folder: string = dirname(file), step?: string): DiskRefusedError | undefined {
  const said = diskProblem(errorCode(err), folder);
  if (!said) return undefined;
  const why = step ? `${step}, as ${said.problem}` : said.problem;
  return new DiskRefusedError(`Cannot write ${file}: ${why}. Nothing was changed. ${said.next}, then try again.`, { cause: err });
}

/** Runs a write to `file`; a refusal of its disk is thrown in words (DiskRefusedError), any other error as it was. */
export async function sayingDiskRefusal<T>(file: string, write: () => Promise<T>, folder?: string, step?: string): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw diskRefusal(err, file, folder, step) ?? err;
  }
}

/**
 * Disconnect took the app's entry out of `file`, but the disk refused revoking its token in `tokensFile`: said
 * so, with the way to revoke it still. Undefined for errors that are not the disk's.
 */
export function tokenNotRevoked(err: unknown, tokensFile: string, file: string, app: string): DiskRefusedError | undefined {
  const said = diskProblem(errorCode(err), dirname(tokensFile));
  if (!said) return undefined;
  return new DiskRefusedError(
    `Spillway's entry was taken out of ${file}, but ${app}'s token could not be revoked in ${tokensFile}: ${said.problem}. ` +
      `${said.next}, then connect ${app} and disconnect it again, so that token stops working.`,
    { cause: err },
  );
}

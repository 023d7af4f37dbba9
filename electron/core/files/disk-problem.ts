/**
 * Why the disk refused a write, by error code, in words: what is wrong with the disk holding a folder, and
 * the next step. Shared by a settings save (config-file.ts) and writes to AI apps' files (clients/).
 */

/** What is wrong with the disk holding `folder`, and the next step; undefined for errors that are not the disk's. */
export function diskProblem(code: string | undefined, folder: string): { problem: string; next: string } | undefined {
  switch (code) {
    case 'ENOSPC':
      return { problem: `the disk holding ${folder} is full`, next: 'Free some space on it' };
    case 'EDQUOT':
      return { problem: `your disk quota for ${folder} is used up`, next: 'Free some space there' };
    case 'EROFS':
      return { problem: `${folder} is on a disk that is read-only`, next: 'Make it writable' };
    case 'EACCES':
    case 'EPERM':
      return { problem: `Spillway is not allowed to write in ${folder}`, next: 'Give your user write access to that folder' };
    default:
      return undefined;
  }
}

/** The error's system code (ENOSPC…), when it has one. */
export function errorCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

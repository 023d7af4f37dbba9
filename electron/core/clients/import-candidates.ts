/** Which of an app's servers Spillway offers to import, and the refusals of an import, in plain words. */
import type { ClientIdName } from '../../../shared/api-clients.js';
import { isThisHub, type HubIdentity } from './entry-owner.js';
import type { ClientRegistry } from './registry.js';
import type { ImportCandidate } from './types.js';

/**
 * An import named servers Spillway cannot take: ones the client's file does not have, ones that use a
 * variable only the app fills in, or this Spillway itself (the control API answers `invalid`, field `names`).
 */
export class UnknownImportError extends Error {
  override readonly name = 'UnknownImportError';
}

/**
 * The app's servers Spillway can run (`candidates`), and the names of those that are this hub itself
 * (`itself`): an entry the user added by hand under another name than "spillway", or one another app wrote.
 * As an upstream, the hub would call itself.
 */
export async function importableServers(
  registry: Pick<ClientRegistry, 'importCandidates'>,
  id: ClientIdName,
  hub: HubIdentity,
): Promise<{ candidates: ImportCandidate[]; itself: string[] }> {
  const all = await registry.importCandidates(id);
  const self = (c: ImportCandidate) => isThisHub(c.kind === 'stdio' ? { command: c.command, args: c.args, env: c.env } : { url: c.url }, hub);
  return { candidates: all.filter((c) => !self(c)), itself: all.filter(self).map((c) => c.name) };
}

/** Refuses an import of servers that are this hub itself, naming them (`app`: the app's name). */
export function refuseItself(names: readonly string[], itself: readonly string[], app: string): void {
  const own = names.filter((n) => itself.includes(n));
  if (own.length === 0) return;
  const quoted = own.map((n) => `"${n}"`).join(', ');
  throw new UnknownImportError(
    `${quoted} in ${app}'s settings ${own.length === 1 ? 'is' : 'are'} Spillway itself (it leads to this Spillway), so Spillway ` +
      `does not add ${own.length === 1 ? 'it' : 'them'} as one of its servers: it would call itself. Nothing was changed. Import the other servers.`,
  );
}

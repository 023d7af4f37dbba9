/**
 * When two servers are the same one: the same command, arguments and environment, or the same address
 * and headers. Env and headers count: two copies of one package with different tokens are two accounts,
 * and taking one for the other would move an app onto someone else's credentials. Values are compared as
 * given, so callers hand in resolved ones (a secret-store reference matches nothing but itself).
 */
import type { ServerConfig } from '../../../shared/config.js';
import { expandSecretArgs, isSecretArgName } from '../../../shared/server-config.js';
import { expandSecretUrl } from '../secrets/url-secrets.js';
import type { ImportCandidate } from './types.js';

type Fields =
  | { kind: 'stdio'; command: string; args: readonly string[]; env: Record<string, string> }
  | { kind: 'url'; url: string; headers: Record<string, string> };

/** The entries sorted by name, so the order a file lists them in does not matter. */
const sorted = (values: Record<string, string>) => Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function identity(f: Fields): string {
  return JSON.stringify(f.kind === 'stdio' ? ['stdio', f.command, f.args, sorted(f.env)] : ['url', f.url, sorted(f.headers)]);
}

/** A client's server as compared (HTTP and SSE at one address are one server). */
export function candidateIdentity(c: ImportCandidate): string {
  return identity(
    c.kind === 'stdio' ? { kind: 'stdio', command: c.command, args: c.args, env: c.env } : { kind: 'url', url: c.url, headers: c.headers },
  );
}

/**
 * An upstream's config as compared; give it with its secrets resolved. A secret argument or a secret part
 * of an address kept in the store is compared as the server gets it, as the app's file has it.
 */
export function configIdentity(cfg: ServerConfig): string {
  if (cfg.type !== 'stdio') return identity({ kind: 'url', ...expandSecretUrl(cfg.url, cfg.headers) });
  const env = Object.fromEntries(Object.entries(cfg.env).filter(([name]) => !isSecretArgName(name)));
  return identity({ kind: 'stdio', command: cfg.command, args: expandSecretArgs(cfg.args, cfg.env), env });
}

/**
 * A server's env and header values in the secret store (issue 15): config.json holds SECRET_REF in their
 * place, never the value. Every non-empty env and header value is a secret whatever its key (issue 13,
 * item 12); an empty one stays in the config (it means "set, but empty"). The store names a value
 * `env:<name>` or `header:<name>` under the server's id.
 */
import { SECRET_REF, type Config, type ServerConfig } from '../../../shared/config.js';
import { SecretStoreError, type SecretStore } from './secret-store.js';

type Kind = 'env' | 'header';

const valuesOf = (cfg: ServerConfig): [Kind, Record<string, string>] => (cfg.type === 'stdio' ? ['env', cfg.env] : ['header', cfg.headers]);

const withValues = (cfg: ServerConfig, values: Record<string, string>): ServerConfig =>
  cfg.type === 'stdio' ? { ...cfg, env: values } : { ...cfg, headers: values };

export const secretName = (kind: Kind, key: string) => `${kind}:${key}`;

/** Whether a server config still holds a plain env or header value. */
export function hasPlainSecrets(cfg: ServerConfig): boolean {
  return Object.values(valuesOf(cfg)[1]).some((v) => v !== '' && v !== SECRET_REF);
}

/**
 * Moves a server's plain values into the store and gives the config with references. `changed` says
 * whether a value was written (a changed secret needs a restart although the config reads the same).
 */
export async function storeServerSecrets(store: SecretStore, id: string, cfg: ServerConfig): Promise<{ config: ServerConfig; changed: boolean }> {
  const [kind, values] = valuesOf(cfg);
  const next: Record<string, string> = {};
  let changed = false;
  for (const [key, value] of Object.entries(values)) {
    if (value === '' || value === SECRET_REF) {
      next[key] = value;
      continue;
    }
    await store.set(id, secretName(kind, key), value);
    next[key] = SECRET_REF;
    changed = true;
  }
  return { config: withValues(cfg, next), changed };
}

/** Forgets the stored values of a server's references, except those of `keep` (names of the same kind). */
export async function forgetServerSecrets(store: SecretStore, id: string, cfg: ServerConfig, keep: ReadonlySet<string> = new Set()): Promise<void> {
  const [kind, values] = valuesOf(cfg);
  for (const [key, value] of Object.entries(values)) if (value === SECRET_REF && !keep.has(key)) await store.delete(id, secretName(kind, key));
}

/** Forgets the values `before` referenced that `next` (the same server's new config, saved) no longer does. */
export async function forgetUnreferenced(store: SecretStore, id: string, before: ServerConfig, next: ServerConfig): Promise<void> {
  const values = valuesOf(next)[1];
  // Another kind of server (stdio → HTTP) names its values differently: nothing of before's is kept.
  const keep = new Set(valuesOf(before)[0] === valuesOf(next)[0] ? Object.keys(values).filter((k) => values[k] === SECRET_REF) : []);
  await forgetServerSecrets(store, id, before, keep);
}

/** The config a server starts with: each reference replaced by its stored value. */
export async function resolveServerSecrets(store: SecretStore, id: string, cfg: ServerConfig): Promise<ServerConfig> {
  const [kind, values] = valuesOf(cfg);
  if (!Object.values(values).includes(SECRET_REF)) return cfg;
  const resolved: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== SECRET_REF) {
      resolved[key] = value;
      continue;
    }
    const stored = await store.get(id, secretName(kind, key));
    if (stored === undefined)
      throw new SecretStoreError(
        `The ${kind === 'env' ? 'variable' : 'header'} ${key} of ${id} is not in the ${store.kind === 'keychain' ? 'keychain' : 'secrets file'}: enter its value again in the server's settings.`,
      );
    resolved[key] = stored;
  }
  return withValues(cfg, resolved);
}

/** Moves every server's plain values into the store; the config with references, or undefined when none was plain. */
export async function moveConfigSecrets(store: SecretStore, config: Config): Promise<{ config: Config; servers: string[] } | undefined> {
  const moved = Object.entries(config.servers).filter(([, cfg]) => hasPlainSecrets(cfg));
  if (moved.length === 0) return undefined;
  const servers = { ...config.servers };
  for (const [id, cfg] of moved) servers[id] = (await storeServerSecrets(store, id, cfg)).config;
  return { config: { ...config, servers }, servers: moved.map(([id]) => id) };
}

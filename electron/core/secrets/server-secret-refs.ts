/**
 * A server's env and header values in the secret store (issue 15): config.json holds SECRET_REF in their
 * place, never the value. Every non-empty env and header value is a secret whatever its key (issue 13,
 * item 12); an empty one stays in the config (it means "set, but empty"). So is a credential in a remote
 * server's address (url-secrets.ts). The store names a value `env:<name>`, `header:<name>` or
 * `url:<parameter>` under the server's id.
 */
import { SECRET_REF, type Config, type ServerConfig } from '../../../shared/config.js';
import { secretArgName } from '../../../shared/server-config.js';
import { secretWordAt } from '../log/redact.js';
import { SecretStoreError, type SecretStore } from './secret-store.js';
import { splitUrlSecrets, swapSecretParams, urlSecretRefs, urlSecretValues } from './url-secrets.js';

type Kind = 'env' | 'header' | 'url';

const valuesOf = (cfg: ServerConfig): [Kind, Record<string, string>] => (cfg.type === 'stdio' ? ['env', cfg.env] : ['header', cfg.headers]);

const withValues = (cfg: ServerConfig, values: Record<string, string>): ServerConfig =>
  cfg.type === 'stdio' ? { ...cfg, env: values } : { ...cfg, headers: values };

export const secretName = (kind: Kind, key: string) => `${kind}:${key}`;

/**
 * In a config being saved or tested, never in config.json: the value stored under another env variable,
 * header or credential parameter of the address of the same server. The edit form sends it when a key
 * whose value it showed masked was renamed (see restoreMaskedSecrets); storeServerSecrets stores that
 * value under the new name.
 */
export const movedSecretRef = (fromKey: string) => `<secret of ${fromKey}>`;
const MOVED_REF = /^<secret of ([\s\S]+)>$/;

interface Ref {
  kind: Kind;
  key: string;
  /** Its name in the store. */
  name: string;
}

const ref = (kind: Kind, key: string): Ref => ({ kind, key, name: secretName(kind, key) });

/** The values a config refers to. */
function referenced(cfg: ServerConfig): Ref[] {
  const [kind, values] = valuesOf(cfg);
  const refs = Object.keys(values)
    .filter((key) => values[key] === SECRET_REF)
    .map((key) => ref(kind, key));
  if (cfg.type !== 'stdio') refs.push(...urlSecretRefs(cfg.url).map((param) => ref('url', param)));
  return refs;
}

/**
 * A stdio config whose secret-looking arguments (as lists and logs mask them: `--api-key sk-…`, a
 * password in a connection string, `-e GITHUB_TOKEN=ghp_…`) are moved to its env under
 * `SPILLWAY_SECRET_ARG_<n>`, a placeholder in their place (see expandSecretArgs): env values go to the
 * secret store, so config.json never holds them.
 */
export function secretArgsToEnv(cfg: ServerConfig): ServerConfig {
  if (cfg.type !== 'stdio') return cfg;
  const env = { ...cfg.env };
  let n = 0;
  let moved = false;
  const args = cfg.args.map((arg, i) => {
    if (!secretWordAt(cfg.args, i)) return arg;
    let name: string;
    do name = secretArgName(++n);
    while (Object.hasOwn(env, name));
    env[name] = arg;
    moved = true;
    return `\${${name}}`;
  });
  return moved ? { ...cfg, args, env } : cfg;
}

/** Whether a server config still holds a plain env or header value, a secret argument, or a credential in its address. */
export function hasPlainSecrets(cfg: ServerConfig): boolean {
  if (cfg.type !== 'stdio' && splitUrlSecrets(cfg.url).values.size > 0) return true;
  if (secretArgsToEnv(cfg) !== cfg) return true;
  return Object.values(valuesOf(cfg)[1]).some((v) => v !== '' && v !== SECRET_REF);
}

/**
 * Moves a server's plain values into the store and gives the config with references. `changed` says
 * whether a value was written (a changed secret needs a restart although the config reads the same).
 */
export async function storeServerSecrets(store: SecretStore, id: string, given: ServerConfig): Promise<{ config: ServerConfig; changed: boolean }> {
  const cfg = secretArgsToEnv(given);
  const [kind, values] = valuesOf(cfg);
  const next: Record<string, string> = {};
  let changed = false;
  for (const [key, value] of Object.entries(values)) {
    if (value === '' || value === SECRET_REF) {
      next[key] = value;
      continue;
    }
    await store.set(id, secretName(kind, key), await movedValue(store, id, kind, value));
    next[key] = SECRET_REF;
    changed = true;
  }
  let config = withValues(cfg, next);
  if (config.type !== 'stdio') {
    const { url, values: inUrl } = splitUrlSecrets(config.url);
    for (const [param, value] of inUrl) await store.set(id, secretName('url', param), await movedValue(store, id, 'url', value));
    if (inUrl.size > 0) {
      config = { ...config, url };
      changed = true;
    }
  }
  return { config, changed };
}

/** A value as given, or the stored one a movedSecretRef stands for. */
async function movedValue(store: SecretStore, id: string, kind: Kind, value: string): Promise<string> {
  const from = MOVED_REF.exec(value)?.[1];
  if (from === undefined) return value;
  const stored = await store.get(id, secretName(kind, from));
  if (stored === undefined) throw missing(store, id, ref(kind, from));
  return stored;
}

/** Forgets the stored values of a server's references, except those `keep` names (store names). */
export async function forgetServerSecrets(store: SecretStore, id: string, cfg: ServerConfig, keep: ReadonlySet<string> = new Set()): Promise<void> {
  for (const { name } of referenced(cfg)) if (!keep.has(name)) await store.delete(id, name);
}

/** Forgets the values `before` referenced that `next` (the same server's new config, saved) no longer does. */
export async function forgetUnreferenced(store: SecretStore, id: string, before: ServerConfig, next: ServerConfig): Promise<void> {
  // Another kind of server (stdio → HTTP) names its values differently: nothing of before's is kept.
  await forgetServerSecrets(store, id, before, new Set(referenced(next).map((r) => r.name)));
}

/** The config a server starts with: each reference (and each movedSecretRef) replaced by its stored value. */
export async function resolveServerSecrets(store: SecretStore, id: string, cfg: ServerConfig): Promise<ServerConfig> {
  const refs = referenced(cfg);
  const [kind, values] = valuesOf(cfg);
  const inUrl = cfg.type === 'stdio' ? new Map<string, string>() : urlSecretValues(cfg.url);
  if (refs.length === 0 && ![...Object.values(values), ...inUrl.values()].some((value) => MOVED_REF.test(value))) return cfg;
  const stored = new Map<string, string>();
  for (const r of refs) {
    const value = await store.get(id, r.name);
    if (value === undefined) throw missing(store, id, r);
    stored.set(r.name, value);
  }
  const resolved: [string, string][] = [];
  for (const [key, value] of Object.entries(values)) {
    resolved.push([key, value === SECRET_REF ? stored.get(secretName(kind, key))! : await movedValue(store, id, kind, value)]);
  }
  const config = withValues(cfg, Object.fromEntries(resolved));
  if (config.type === 'stdio') return config;
  const moved = new Map<string, string>();
  for (const [param, value] of inUrl) if (MOVED_REF.test(value)) moved.set(param, await movedValue(store, id, 'url', value));
  return {
    ...config,
    url: swapSecretParams(config.url, (param, value) => (value === SECRET_REF ? stored.get(secretName('url', param)) : moved.get(param))),
  };
}

function missing(store: SecretStore, id: string, { kind, key }: Ref): SecretStoreError {
  const what = kind === 'env' ? `variable ${key}` : kind === 'header' ? `header ${key}` : `key ${key} in the address`;
  return new SecretStoreError(
    `The ${what} of ${id} is not in the ${store.kind === 'keychain' ? 'keychain' : 'secrets file'}: enter its value again in the server's settings.`,
  );
}

/** Moves every server's plain values into the store; the config with references, or undefined when none was plain. */
export async function moveConfigSecrets(store: SecretStore, config: Config): Promise<{ config: Config; servers: string[] } | undefined> {
  const moved = Object.entries(config.servers).filter(([, cfg]) => hasPlainSecrets(cfg));
  if (moved.length === 0) return undefined;
  const servers = { ...config.servers };
  for (const [id, cfg] of moved) servers[id] = (await storeServerSecrets(store, id, cfg)).config;
  return { config: { ...config, servers }, servers: moved.map(([id]) => id) };
}

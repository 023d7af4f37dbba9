/**
 * A planned launch as a Spillway upstream config (shared/config.ts's ServerConfig), with the secret
 * values kept apart so that the caller can store them as secrets rather than in config.json.
 */
import { secretArgName, ServerConfigSchema, type ServerConfig } from '../../../shared/config.js';
import { hideUrlSecrets } from '../secrets/url-secrets.js';
import type { Launch } from './launch-plan.js';

export interface RegistryUpstream {
  /** The config without its secret env or header values. */
  config: ServerConfig;
  /** The secret values by env variable (stdio) or header (HTTP, SSE) name. */
  secrets: { env: Record<string, string>; headers: Record<string, string> };
  /**
   * Command-line words, or parts of the address, that hold a secret value (the entry put one there): in
   * `args` or `url` as placeholders, their text in `secrets.env` or `secrets.headers` (see hideUrlSecrets).
   */
  secretArgs: number;
}

const holdsSecret = (value: string, secrets: ReadonlySet<string>) => [...secrets].some((s) => s !== '' && value.includes(s));

/** Splits a launch into its config and its secrets. Throws the zod error when the result is not a valid config (e.g. a URL left unfilled). */
export function registryUpstream(launch: Launch, secretValues: ReadonlySet<string>, label?: string): RegistryUpstream {
  const split = (map: Record<string, string>) => {
    const plain: Record<string, string> = {};
    const secret: Record<string, string> = {};
    for (const [k, v] of Object.entries(map)) (holdsSecret(v, secretValues) ? secret : plain)[k] = v;
    return { plain, secret };
  };
  const common = label ? { label } : {};
  if (launch.type === 'stdio') {
    const { plain, secret } = split(launch.env);
    // A word holding a secret goes to the env (a secret) and a placeholder takes its place: see expandSecretArgs.
    let secretArgs = 0;
    const args = launch.args.map((arg) => {
      if (!holdsSecret(arg, secretValues)) return arg;
      const name = secretArgName(++secretArgs);
      secret[name] = arg;
      return `\${${name}}`;
    });
    const config = ServerConfigSchema.parse({ type: 'stdio', command: launch.command, args, env: plain, ...common });
    return { config, secrets: { env: secret, headers: {} }, secretArgs };
  }
  // Parsed first as given: a user name and password in the address become its Authorization header.
  const given = ServerConfigSchema.parse({ type: launch.type, url: launch.url, headers: launch.headers, ...common });
  if (given.type === 'stdio') throw new Error('a remote launch parsed as a stdio server');
  const { plain, secret } = split(given.headers);
  // A header the parse made (from the address's sign-in) holds a credential, whatever the entry says of it.
  for (const [name, value] of Object.entries(plain)) {
    if (Object.hasOwn(launch.headers, name) && launch.headers[name] === value) continue;
    secret[name] = value;
    delete plain[name];
  }
  const hidden = hideUrlSecrets(given.url, secretValues, new Set(Object.keys(given.headers)));
  const config = ServerConfigSchema.parse({ ...given, url: hidden.url, headers: plain });
  return { config, secrets: { env: {}, headers: { ...secret, ...hidden.values } }, secretArgs: Object.keys(hidden.values).length };
}

/** The config with its secrets put back in (where no secret store exists yet). */
export function withSecrets(upstream: RegistryUpstream): ServerConfig {
  const { config, secrets } = upstream;
  return config.type === 'stdio'
    ? { ...config, env: { ...config.env, ...secrets.env } }
    : { ...config, headers: { ...config.headers, ...secrets.headers } };
}

/** Whether any secret value was kept apart. */
export function hasSecrets(upstream: RegistryUpstream): boolean {
  return Object.keys(upstream.secrets.env).length + Object.keys(upstream.secrets.headers).length > 0;
}

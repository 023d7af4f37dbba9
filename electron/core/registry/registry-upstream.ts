/**
 * A planned launch as a Spillway upstream config (shared/config.ts's ServerConfig), with the secret
 * values kept apart so that the caller can store them as secrets rather than in config.json.
 */
import { secretArgName, ServerConfigSchema, type ServerConfig } from '../../../shared/config.js';
import type { Launch } from './launch-plan.js';

export interface RegistryUpstream {
  /** The config without its secret env or header values. */
  config: ServerConfig;
  /** The secret values by env variable (stdio) or header (HTTP, SSE) name. */
  secrets: { env: Record<string, string>; headers: Record<string, string> };
  /** Command-line words that hold a secret value (the entry put one there): in `args` as placeholders, their words in `secrets.env`. */
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
  const { plain, secret } = split(launch.headers);
  const config = ServerConfigSchema.parse({ type: launch.type, url: launch.url, headers: plain, ...common });
  return { config, secrets: { env: {}, headers: secret }, secretArgs: holdsSecret(launch.url, secretValues) ? 1 : 0 };
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

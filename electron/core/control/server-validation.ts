/**
 * A server's config as the control API takes it to add, update or test: its fields checked by the shared
 * schema, its headers by what a request can carry (shared/server-config.ts), each problem a ControlError
 * naming the field.
 */
import { ServerConfigSchema, describeZodError, unsendableHeaders, type ServerConfig } from '../../../shared/config.js';
import { isThisHub, type HubIdentity } from '../clients/entry-owner.js';
import { ControlError } from './control-error.js';

/** The config sent, parsed; refused (`invalid`, naming the field) when it is not a server's. */
export function validServer(input: unknown): ServerConfig {
  const parsed = ServerConfigSchema.safeParse(input);
  if (!parsed.success) {
    const { field, message } = describeZodError(parsed.error, 'config');
    throw new ControlError('invalid', message, field);
  }
  return parsed.data;
}

/**
 * Refuses a header of `cfg` (masked values already restored) that a request cannot carry, naming it.
 * Headers as `kept` holds them (the stored config, or the one Undo puts back) are not checked: one
 * stored before the check or written by hand fails that server's start only.
 */
export function refuseUnsendableHeaders(cfg: ServerConfig, kept: ServerConfig | undefined): void {
  if (cfg.type === 'stdio') return;
  const error = unsendableHeaders(cfg.headers, kept && kept.type !== 'stdio' ? kept.headers : undefined);
  if (!error) return;
  const { field, message } = describeZodError(error, 'config');
  throw new ControlError('invalid', message, field);
}

/**
 * Refuses a server that is this hub itself (its own address, or a bridge to its data folder): as one of its
 * upstreams, the hub would call itself, each call waiting on itself.
 */
export function refuseThisHub(cfg: ServerConfig, hub: HubIdentity | undefined, before?: ServerConfig): void {
  if (!hub || !isThisHubConfig(cfg, hub)) return;
  // An edit of a server saved as this hub before the check existed is left to the user (they may be fixing it).
  if (before && isThisHubConfig(before, hub)) return;
  const field = cfg.type === 'stdio' ? 'config.args' : 'config.url';
  throw new ControlError(
    'invalid',
    `This server is Spillway itself (${cfg.type === 'stdio' ? 'its bridge' : 'its own address'}), so Spillway does not add it as one of its servers: it would call itself. Add the servers you want Spillway to run instead.`,
    field,
  );
}

function isThisHubConfig(cfg: ServerConfig, hub: HubIdentity): boolean {
  return isThisHub(cfg.type === 'stdio' ? { command: cfg.command, args: cfg.args, env: cfg.env } : { url: cfg.url }, hub);
}

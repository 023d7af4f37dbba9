/**
 * A server's config as the control API takes it to add, update or test: its fields checked by the shared
 * schema, its headers by what a request can carry (shared/server-config.ts), each problem a ControlError
 * naming the field.
 */
import { ServerConfigSchema, describeZodError, unsendableHeaders, type ServerConfig } from '../../../shared/config.js';
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

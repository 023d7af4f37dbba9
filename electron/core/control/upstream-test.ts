/**
 * The Test button of a server's form: connects once to a config that is not saved, lists its tools and
 * stops it again. What the server printed comes back with its own secret values (env and header values,
 * secret words, the credentials in its address) and every known one masked.
 */
import type { ServerConfig } from '../../../shared/config.js';
import { redactText } from '../log/redact.js';
import { valueMask, type SecretValues } from '../log/secret-values.js';
import { unsavedSecretValues } from '../secrets/secret-parts.js';
import type { UpstreamPool } from '../upstream/upstream-pool.js';

/** What a test connection uses of the hub. */
export interface UpstreamTestDeps {
  pool: Pick<UpstreamPool, 'probe'>;
  /** The known secret values, masked in what a test reports (stderr, errors). */
  secrets: Pick<SecretValues, 'snapshot'>;
}

/** Connects to `cfg` (its secret values in place, not references) once, and reports what it found. */
export async function testUpstream(deps: UpstreamTestDeps, cfg: ServerConfig) {
  const own = valueMask(unsavedSecretValues(cfg));
  const known = deps.secrets.snapshot();
  const mask = (text: string) => redactText(own.mask(text), known);
  const started = performance.now();
  const up = deps.pool.probe(cfg);
  try {
    await up.connectOnce();
    return {
      ok: up.status === 'ready',
      ...(up.error ? { error: mask(up.error) } : {}),
      ...(up.serverInfo ? { serverInfo: { name: up.serverInfo.name, version: up.serverInfo.version } } : {}),
      tools: up.tools.map((t) => ({ name: t.name, original: t.name, ...(t.description ? { description: t.description } : {}) })),
      stderrTail: up.stderrTail().slice(-50).map(mask),
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    await up.stop();
  }
}

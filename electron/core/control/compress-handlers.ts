/** Control handlers of the compression model (issue 8): the Settings "Test" button. */
import type { CompressionTestResult } from '../../../shared/api-compress.js';
import { testEndpoint } from '../compress/endpoint-check.js';
import type { Settings } from '../../../shared/config.js';
import { redactText } from '../log/redact.js';
import { valueMask } from '../log/secret-values.js';
import type { HandlerMap } from './control-handlers.js';

export function compressHandlers(settings: () => Settings): HandlerMap {
  return {
    'compression.test': async (): Promise<CompressionTestResult> => {
      const c = settings().compression;
      if (!c.baseUrl || !c.model) return { ok: false, latencyMs: 0, error: 'Set the compression endpoint URL and model first.' };
      const check = await testEndpoint({ baseUrl: c.baseUrl, model: c.model, apiKey: c.apiKey ?? null, timeoutMs: c.timeoutMs });
      // An endpoint may echo what it was sent ("Invalid API key: Bearer sk-…"): the key never reaches the form.
      const own = valueMask(c.apiKey ? [c.apiKey] : []);
      return {
        ok: check.ok,
        latencyMs: check.latencyMs,
        model: check.model,
        ...(check.error ? { error: redactText(check.error.message, own) } : {}),
      };
    },
  };
}

/** Control handlers of the compression model (issue 8): the Settings "Test" button. */
import type { CompressionTestResult } from '../../../shared/api-compress.js';
import { testEndpoint } from '../compress/endpoint-check.js';
import type { Settings } from '../../../shared/config.js';
import type { HandlerMap } from './control-handlers.js';

export function compressHandlers(settings: () => Settings): HandlerMap {
  return {
    'compression.test': async (): Promise<CompressionTestResult> => {
      const c = settings().compression;
      if (!c.baseUrl || !c.model) return { ok: false, latencyMs: 0, error: 'Set the compression endpoint URL and model first.' };
      const check = await testEndpoint({ baseUrl: c.baseUrl, model: c.model, apiKey: c.apiKey ?? null, timeoutMs: c.timeoutMs });
      return {
        ok: check.ok,
        latencyMs: check.latencyMs,
        model: check.model,
        ...(check.error ? { error: check.error.message } : {}),
      };
    },
  };
}

import { createChatClient } from './chat-client.js';
import type { ChatClientDeps, ChatEndpointConfig, ChatError } from './chat-client.js';

export interface EndpointCheck {
  ok: boolean;
  latencyMs: number;
  /** The model that answered (as the endpoint names it), else the configured one. */
  model: string;
  error?: ChatError;
}

/**
 * The Settings "Test" button: one tiny completion against the configured endpoint. Any well-formed
 * answer counts, empty text included (reasoning models may spend a small budget thinking). Never throws.
 */
export async function testEndpoint(config: ChatEndpointConfig, deps: ChatClientDeps = {}): Promise<EndpointCheck> {
  const client = createChatClient({ ...config, timeoutMs: config.timeoutMs ?? 15_000 }, deps);
  const result = await client.complete({
    messages: [
      { role: 'system', content: 'Reply with the single word OK.' },
      { role: 'user', content: 'ping' },
    ],
    maxTokens: 16,
  });
  if (!result.ok) return { ok: false, latencyMs: result.latencyMs, model: config.model, error: result.error };
  return { ok: true, latencyMs: result.latencyMs, model: result.model };
}

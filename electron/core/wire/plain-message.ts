import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * A request, notification or result response in its plainest form (no `_meta`, no extra keys, a string
 * or safe-integer id), for which JSONRPCMessageSchema would return the same content; undefined for
 * anything else, which then goes to the schema. The common shapes skip zod this way (issue 6: the schema
 * was a tenth of a relayed call).
 */
export function plainMessage(json: unknown): JSONRPCMessage | undefined {
  if (!isPlainObject(json) || json.jsonrpc !== '2.0') return undefined;
  for (const key in json) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params' && key !== 'result') return undefined;
  }
  const id = json.id;
  if (id !== undefined && typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (typeof json.method === 'string') {
    const params = json.params;
    if (json.result !== undefined || (params !== undefined && !(isPlainObject(params) && params._meta === undefined))) return undefined;
    return json as JSONRPCMessage;
  }
  if (json.method !== undefined || json.params !== undefined || id === undefined) return undefined;
  return isPlainObject(json.result) && json.result._meta === undefined ? (json as JSONRPCMessage) : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

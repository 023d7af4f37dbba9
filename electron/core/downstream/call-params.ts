/**
 * What is wrong with a tools/call's params, in one sentence. The SDK Server parses a request before its
 * handler runs and answers a parse failure with -32603 and zod's issue dump (issue 13); the session's
 * transport wrapper (fast-tool-calls.ts) answers such a call itself with -32602 and this sentence.
 */
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** Why `params` cannot be a tools/call's params; undefined when CallToolRequestSchema accepts them. */
export function callParamsProblem(params: unknown): string | undefined {
  if (params === undefined) return `Invalid params: tools/call takes params such as {"name": "…", "arguments": {…}}, and none were sent.`;
  if (!isObject(params)) return `Invalid params: tools/call takes an object such as {"name": "…", "arguments": {…}}, not ${kindOf(params)}.`;
  if (params.name === undefined) return `Invalid params: the tool's "name" is missing.`;
  if (typeof params.name !== 'string') return `Invalid params: "name" must be the tool's name as a string, not ${kindOf(params.name)}.`;
  if (params.arguments !== undefined && !isObject(params.arguments)) {
    return `Invalid params: "arguments" must be an object of the tool's arguments by name, not ${kindOf(params.arguments)}.`;
  }
  if (params._meta !== undefined && !isObject(params._meta)) return `Invalid params: "_meta" must be an object, not ${kindOf(params._meta)}.`;
  // Rarer fields (a progress token, a task): the schema's own first complaint, with where it is.
  const parsed = CallToolRequestSchema.safeParse({ method: 'tools/call', params });
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const path = issue.path.filter((key) => key !== 'params').join('.');
  const detail = issue.message.replace(/^Invalid input:?\s*/i, '');
  return `Invalid params: ${path ? `"${path}"` : 'the params'} ${detail ? `is invalid (${detail})` : 'is invalid'}.`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value's kind as a sentence says it: "a string", "an array", "null". */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  if (type === 'undefined') return 'nothing';
  return type === 'object' ? 'an object' : `a ${type}`;
}

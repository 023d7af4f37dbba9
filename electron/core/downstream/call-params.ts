/**
 * What is wrong with a tools/call's params, in one sentence. The SDK Server parses a request before its
 * handler runs and answers a parse failure with -32603 and zod's issue dump (issue 13); the session's
 * transport wrapper (fast-tool-calls.ts) answers such a call itself with -32602 and this sentence.
 * Arguments nested too deeply are refused the same way, on every path (nestingProblem), as are the params
 * of any other request (paramsNestingProblem); a client's answer nested too deeply fails the request the
 * hub sent it (answerNestingProblem), and a notification is dropped (notificationNestingProblem).
 */
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { formatCount } from '../../../shared/plain-text.js';

/**
 * How many levels of objects and arrays inside each other a call's arguments (and its `_meta`) may have,
 * the arguments object itself being the first. JSON.parse takes any depth, but JSON.stringify and every
 * recursive walk of the relay overflow the stack a few thousand levels down, inside the hub, with the
 * upstream never asked; no tool's real arguments come near this.
 */
export const MAX_ARGUMENT_DEPTH = 1000;

/** MAX_ARGUMENT_DEPTH as the sentences write it ("1,000"), formatted once. */
const LIMIT = formatCount(MAX_ARGUMENT_DEPTH);

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
  const nesting = nestingProblem(params);
  if (nesting !== undefined) return nesting;
  // Rarer fields (a progress token, a task): the schema's own first complaint, with where it is.
  const parsed = CallToolRequestSchema.safeParse({ method: 'tools/call', params });
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const path = issue.path.filter((key) => key !== 'params').join('.');
  const detail = issue.message.replace(/^Invalid input:?\s*/i, '');
  return `Invalid params: ${path ? `"${path}"` : 'the params'} ${detail ? `is invalid (${detail})` : 'is invalid'}.`;
}

/**
 * Why a call's arguments or `_meta` cannot be relayed for how deeply they nest; undefined when they can.
 * Checked for every call, the plain ones the fast path answers included: it looks at objects and arrays
 * only, and never more than MAX_ARGUMENT_DEPTH levels down.
 */
export function nestingProblem(params: { arguments?: unknown; _meta?: unknown }): string | undefined {
  if (deeperThan(params.arguments, MAX_ARGUMENT_DEPTH)) {
    return (
      `Invalid params: the arguments are nested more than ${LIMIT} levels deep (objects and arrays inside each other), ` +
      `and Spillway passes on at most ${LIMIT}. Flatten them, or send the deep part as a JSON string, and call again.`
    );
  }
  if (deeperThan(params._meta, MAX_ARGUMENT_DEPTH)) {
    return `Invalid params: "_meta" is nested more than ${LIMIT} levels deep, and Spillway passes on at most ${LIMIT}. Flatten it and call again.`;
  }
  return undefined;
}

/**
 * Why a request other than tools/call cannot be relayed for how deeply its params nest; undefined when it
 * can. Each member of the params (`_meta`, a prompt's arguments, …) counts as the first level, as a call's
 * arguments do. Cheap for the same reasons as nestingProblem.
 */
export function paramsNestingProblem(params: unknown): string | undefined {
  const member = tooDeepMember(params);
  if (member === undefined) return undefined;
  return (
    `Invalid params: ${member} nested more than ${LIMIT} levels deep (objects and arrays inside each other), ` +
    `and Spillway passes on at most ${LIMIT}. Flatten it and send the request again.`
  );
}

/**
 * Why a client's notification cannot be taken for how deeply its params nest, counted as a request's are;
 * undefined when it can. A notifications/cancelled whose reason nested 100,000 levels deep overflowed the
 * stack in the relay (over the bridge socket, thrown out of the socket's reader: an uncaught exception,
 * and the session read nothing more). A notification gets no answer: it is dropped, and this is logged.
 */
export function notificationNestingProblem(method: string, params: unknown): string | undefined {
  const member = tooDeepMember(params);
  if (member === undefined) return undefined;
  return (
    `Invalid params: a ${shortened(method)} notification was dropped: ${member} nested more than ${LIMIT} levels deep ` +
    `(objects and arrays inside each other), and Spillway passes on at most ${LIMIT}.`
  );
}

/** Which member of the params nests too deeply, as a sentence names it ('"reason" is'); undefined when none does. */
function tooDeepMember(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  if (Array.isArray(params)) return deeperThan(params, MAX_ARGUMENT_DEPTH + 1) ? 'the params are' : undefined;
  for (const key in params) {
    if (deeperThan((params as Record<string, unknown>)[key], MAX_ARGUMENT_DEPTH)) return `"${shortened(key)}" is`;
  }
  return undefined;
}

/** A client's name for something, cut to 100 characters for a sentence. */
function shortened(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/**
 * Why a client's answer (to sampling, elicitation, roots/list) cannot be passed on to the server that
 * asked, for how deeply its result or error nests; undefined when it can. The request then fails with this
 * sentence, where it would have failed inside the hub, blamed on the server.
 */
export function answerNestingProblem(answer: { result?: unknown; error?: unknown }): string | undefined {
  if (!deeperThan(answer.result, MAX_ARGUMENT_DEPTH) && !deeperThan(answer.error, MAX_ARGUMENT_DEPTH)) return undefined;
  return (
    `Invalid answer: the client's answer is nested more than ${LIMIT} levels deep (objects and arrays inside each other), ` +
    `and Spillway passes on at most ${LIMIT}, so the server's request failed. The client has to answer with flatter data.`
  );
}

/** Whether `value` has objects or arrays more than `levels` deep (it counts as the first level). */
function deeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (deeperThan(item, levels - 1)) return true;
    return false;
  }
  for (const key in value) if (deeperThan((value as Record<string, unknown>)[key], levels - 1)) return true;
  return false;
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

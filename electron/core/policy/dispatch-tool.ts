/**
 * Spillway's meta-tool `spillway__dispatch` (issue 5, after mini-a's proxy-dispatch): one small schema in
 * tools/list instead of every tool's, with list / search / describe / call / read. Calls go back through
 * the caller's `call`, so dispatch calls get the same policies, spill and ledger as direct ones.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ToolSearch } from './tool-search.js';
import { DEFAULT_WEIGHTS } from './search-weights.js';
import { compareText } from '../../../shared/plain-text.js';

export { selectDirectTools } from './direct-tools.js';
export type { DirectSelection, CappedTool } from './direct-tools.js';

export const DISPATCH_TOOL_NAME = 'spillway__dispatch';
export const DISPATCH_ACTIONS = ['list', 'search', 'describe', 'call', 'read'] as const;

/** One tool reachable through dispatch. */
export interface DispatchEntry {
  /** The exposed (namespaced) name: what `call` and `describe` take. */
  name: string;
  server: string;
  /** The upstream's own name; accepted by `call`/`describe` when it is unique. */
  original?: string;
  title?: string;
  description?: string;
  inputSchema: Tool['inputSchema'];
  outputSchema?: Tool['outputSchema'];
  /** readOnlyHint / destructiveHint steer search for "delete ..." or "show ..." requests. */
  annotations?: Tool['annotations'];
}

/** `Ctx` is whatever the caller passes to handle() (e.g. the downstream session); it reaches `call` untouched. */
export interface DispatchDeps<Ctx = undefined> {
  /** The tools behind dispatch, as list, search and its description show them (hidden and withheld ones left out). */
  tools: () => DispatchEntry[];
  /**
   * Every tool describe and call take: those behind dispatch and those listed directly (the cap on
   * direct tools moves a tool out from behind dispatch once it is much used). Default: `tools`.
   */
  callable?: () => DispatchEntry[];
  /** Why a known tool may not be called (hidden by a policy, withheld by a pin); undefined when it may or is not known. */
  refusal?: (name: string, action: 'describe' | 'call') => string | undefined;
  /** Runs a tool by its exposed name through the normal call path. */
  call: (name: string, args: Record<string, unknown>, opts: { resultToSpill?: boolean }, ctx: Ctx) => Promise<CallToolResult>;
  /** spillway__read_result with the same arguments, for the caller in `ctx`. */
  read: (args: Record<string, unknown>, ctx: Ctx) => Promise<CallToolResult>;
  /** The parsed JSON content of a spilled result; throws (with a readable message) when there is none. */
  loadSpilledJson: (handle: string) => Promise<unknown>;
}

export interface Dispatch<Ctx = undefined> {
  /** The tools/list entry (its description names the servers behind it, so it changes with them). */
  readonly tool: Tool;
  handle(args: Record<string, unknown> | undefined, ctx?: Ctx): Promise<CallToolResult>;
}

const LIST_DESCRIPTION_CHARS = 160;
const MAX_LIST_SERVERS_IN_DESCRIPTION = 12;

const INPUT_SCHEMA: Tool['inputSchema'] = {
  type: 'object',
  properties: {
    action: {
      type: 'string',
      enum: [...DISPATCH_ACTIONS],
      description:
        "list: tools by server; search: ranked search by words; describe: one tool's full input schema; " +
        'call: run a tool; read: read a spilled result (same arguments as the tool whose name ends in spillway__read_result).',
    },
    server: { type: 'string', description: 'list: only this server.' },
    schemas: { type: 'boolean', description: "list: include each tool's input schema (default false)." },
    query: { type: 'string', description: 'search: what you need, as an action and its object (e.g. "delete file").' },
    limit: { type: 'integer', minimum: 1, maximum: 50, description: 'search: most results (default 10).' },
    name: { type: 'string', description: 'describe/call: the tool name as listed.' },
    arguments: { type: 'object', description: "call: the tool's arguments.", additionalProperties: true },
    argumentsFrom: {
      type: 'string',
      description: 'call: a spill handle whose content is a JSON object of arguments (merged under `arguments`).',
    },
    resultToSpill: { type: 'boolean', description: 'call: keep the whole result aside and return a preview and a handle.' },
    handle: { type: 'string', description: 'read: the spill handle.' },
    op: { type: 'string', description: 'read: stat, head, tail, slice, grep, query or read (see spillway__read_result).' },
  },
  required: ['action'],
  additionalProperties: true,
};

const ActionArgs = z.object({ action: z.enum(DISPATCH_ACTIONS) });
const ListArgs = z.object({ server: z.string().optional(), schemas: z.boolean().optional() });
const SearchArgs = z.object({
  query: z.string().trim().min(1, 'needs the words to search for'),
  limit: z.number().int().min(1).max(50).default(10),
});
const NameArgs = z.object({ name: z.string().min(1, 'needs the tool name') });
const CALL_KEYS = new Set(['action', 'name', 'arguments', 'argumentsFrom', 'resultToSpill']);
const CallArgs = z.object({
  name: z.string().min(1, 'needs the tool name'),
  // Checked below: an object, or a JSON string of one (the message names what it was instead).
  arguments: z.unknown().optional(),
  argumentsFrom: z.string().min(1).optional(),
  resultToSpill: z.boolean().optional(),
});

/**
 * The answers dispatch makes itself (list, search, describe, and why it cannot do what was asked), told
 * apart from the results of the calls and reads it passes on: see answersTold.
 */
const madeHere = new WeakSet<CallToolResult>();

function text(value: string, isError = false): CallToolResult {
  const answer: CallToolResult = isError ? { content: [{ type: 'text', text: value }], isError: true } : { content: [{ type: 'text', text: value }] };
  madeHere.add(answer);
  return answer;
}

function fail(message: string): CallToolResult {
  return text(message, true);
}

/**
 * A passed-on call that threw, as an error result for the model. Not dispatch's own answer: the call path
 * has counted the call already (as failed, or as cancelled by the client).
 */
function passedOnFailure(name: string, err: unknown): CallToolResult {
  return { content: [{ type: 'text', text: `Calling "${name}" failed: ${err instanceof Error ? err.message : String(err)}` }], isError: true };
}

function zodMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  const field = issue.path.map(String).join('.');
  return field ? `"${field}" ${issue.message}` : issue.message;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function firstLine(description: string | undefined, max = LIST_DESCRIPTION_CHARS): string {
  const line = (description ?? '').trim().split(/\r?\n/, 1)[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

function byServer(entries: DispatchEntry[]): Map<string, DispatchEntry[]> {
  const groups = new Map<string, DispatchEntry[]>();
  for (const e of [...entries].sort((a, b) => compareText(a.server, b.server) || compareText(a.name, b.name))) {
    const group = groups.get(e.server) ?? [];
    group.push(e);
    groups.set(e.server, group);
  }
  return groups;
}

/** An own tool as the call path answers it: its listed definition, and its call. */
export interface AnsweringTool<Ctx> {
  readonly tool: Tool;
  call(args: Record<string, unknown>, ctx: Ctx): Promise<CallToolResult>;
}

/**
 * The dispatch own tool with each answer it makes itself told to `answered`, with how long it took:
 * such an answer reaches the model as a tool's result does, so the ledger counts it. The calls and reads
 * it passes on are counted where they are made (the call path, the read-back). A request the client
 * cancelled gets no answer, so nothing is told.
 */
export function answersTold<Ctx extends { extra: { readonly signal: AbortSignal } }>(
  own: AnsweringTool<Ctx>,
  answered: (answer: CallToolResult, ctx: Ctx, durationMs: number) => void,
): AnsweringTool<Ctx> {
  return {
    get tool() {
      return own.tool;
    },
    async call(args, ctx) {
      const started = performance.now();
      const answer = await own.call(args, ctx);
      // The signal is read only for dispatch's own answers: on the fast path, reading it makes one.
      if (madeHere.has(answer) && !ctx.extra.signal.aborted) answered(answer, ctx, performance.now() - started);
      return answer;
    },
  };
}

/** Builds the dispatch tool over the caller's tools, call path and spill store. */
export function createDispatch<Ctx = undefined>(deps: DispatchDeps<Ctx>): Dispatch<Ctx> {
  // The ranker and its learned re-ranker (search-rerank.ts): held out, recall@5 0.857 and MRR 0.730 against 0.841 and 0.703 alone.
  const search = new ToolSearch(DEFAULT_WEIGHTS, { rerank: true });

  /**
   * The tool describe and call mean by `name`: its exposed name, else its upstream's own name when one
   * tool has it. Otherwise the answer says why: the tool may not be called, the name is ambiguous, or
   * nothing has it (with near names).
   */
  function find(name: string, action: 'describe' | 'call'): { entry: DispatchEntry } | { error: CallToolResult } {
    const entries = (deps.callable ?? deps.tools)();
    const exact = entries.find((e) => e.name === name);
    if (exact) return { entry: exact };
    const refusal = deps.refusal?.(name, action);
    if (refusal !== undefined) return { error: fail(refusal) };
    const byOriginal = entries.filter((e) => (e.original ?? e.name) === name);
    if (byOriginal.length === 1) return { entry: byOriginal[0] };
    if (byOriginal.length > 1) {
      const names = byOriginal.map((e) => e.name).sort();
      return {
        error: fail(
          `"${name}" is ambiguous: ${names.length} servers have a tool of that name. Use the full name of the one you mean: ${names.join(', ')}.`,
        ),
      };
    }
    const near = search.search(entries, name, 3).map((h) => h.name);
    const hint = near.length > 0 ? ` Did you mean: ${near.join(', ')}?` : '';
    return { error: fail(`Unknown tool "${name}".${hint} Use action "search" or "list" to find tools.`) };
  }

  function list(args: Record<string, unknown>): CallToolResult {
    const parsed = ListArgs.safeParse(args);
    if (!parsed.success) return fail(`list: ${zodMessage(parsed.error)}`);
    let entries = deps.tools();
    if (parsed.data.server !== undefined) {
      const servers = [...new Set(entries.map((e) => e.server))].sort();
      entries = entries.filter((e) => e.server === parsed.data.server);
      if (entries.length === 0) return fail(`list: no server "${parsed.data.server}" behind dispatch (servers: ${servers.join(', ') || 'none'}).`);
    }
    const groups = byServer(entries);
    const lines = [
      `${plural(entries.length, 'tool')} on ${plural(groups.size, 'server')}. ` +
        'Use action "describe" for a tool\'s parameters and "call" to run it.',
    ];
    for (const [server, tools] of groups) {
      lines.push('', `${server} (${tools.length}):`);
      for (const t of tools) {
        const description = firstLine(t.description);
        lines.push(`- ${t.name}${description ? `: ${description}` : ''}`);
        if (parsed.data.schemas) lines.push(`  input: ${JSON.stringify(t.inputSchema)}`);
      }
    }
    return text(lines.join('\n'));
  }

  function searchTools(args: Record<string, unknown>): CallToolResult {
    const parsed = SearchArgs.safeParse(args);
    if (!parsed.success) return fail(`search: ${zodMessage(parsed.error)}`);
    const hits = search.search(deps.tools(), parsed.data.query, parsed.data.limit);
    if (hits.length === 0) return text(`No tools match "${parsed.data.query}". Try other words, or action "list".`);
    const lines = [`${plural(hits.length, 'match', 'matches')} for "${parsed.data.query}", best first:`];
    hits.forEach((h, i) => {
      const description = firstLine(h.description);
      lines.push(
        `${i + 1}. ${h.name} (${h.server}, score ${h.score.toFixed(2)}; matched ${h.matched.join(', ')})${description ? `: ${description}` : ''}`,
      );
    });
    return text(lines.join('\n'));
  }

  function describe(args: Record<string, unknown>): CallToolResult {
    const parsed = NameArgs.safeParse(args);
    if (!parsed.success) return fail(`describe: ${zodMessage(parsed.error)}`);
    const found = find(parsed.data.name, 'describe');
    if ('error' in found) return found.error;
    const { name, server, title, description, inputSchema, outputSchema, annotations } = found.entry;
    return text(
      JSON.stringify(
        {
          name,
          server,
          ...(title ? { title } : {}),
          description: description ?? '',
          inputSchema,
          ...(outputSchema ? { outputSchema } : {}),
          ...(annotations ? { annotations } : {}),
        },
        undefined,
        2,
      ),
    );
  }

  async function call(args: Record<string, unknown>, ctx: Ctx): Promise<CallToolResult> {
    const stray = Object.keys(args).filter((k) => !CALL_KEYS.has(k));
    if (stray.length > 0) {
      return fail(`call: unexpected ${stray.map((k) => `"${k}"`).join(', ')}; put the tool's own arguments under "arguments".`);
    }
    const parsed = CallArgs.safeParse(args);
    if (!parsed.success) return fail(`call: ${zodMessage(parsed.error)}`);
    const { name, argumentsFrom, resultToSpill } = parsed.data;
    const found = find(name, 'call');
    if ('error' in found) return found.error;
    const { entry } = found;

    let inline: unknown = parsed.data.arguments === undefined ? {} : parsed.data.arguments;
    if (typeof inline === 'string') {
      // Some models send the arguments as a JSON string.
      try {
        inline = JSON.parse(inline);
      } catch {
        return fail('call: "arguments" must be an object (it was a string that is not JSON).');
      }
    }
    if (!isPlainObject(inline)) return fail(`call: "arguments" must be an object, not ${kindOf(inline)}.`);

    let loaded: Record<string, unknown> = {};
    if (argumentsFrom !== undefined) {
      let value: unknown;
      try {
        value = await deps.loadSpilledJson(argumentsFrom);
      } catch (err) {
        return fail(`call: argumentsFrom "${argumentsFrom}": ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!isPlainObject(value)) {
        return fail(`call: argumentsFrom "${argumentsFrom}" holds ${kindOf(value)}; it must hold a JSON object of arguments.`);
      }
      loaded = value;
    }

    try {
      return await deps.call(entry.name, { ...loaded, ...inline }, resultToSpill ? { resultToSpill: true } : {}, ctx);
    } catch (err) {
      return passedOnFailure(entry.name, err);
    }
  }

  async function read(args: Record<string, unknown>, ctx: Ctx): Promise<CallToolResult> {
    const { action: _action, ...rest } = args;
    try {
      return await deps.read(rest, ctx);
    } catch (err) {
      return fail(`read: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  return {
    get tool(): Tool {
      const groups = byServer(deps.tools());
      const names = [...groups].map(([server, tools]) => `${server} (${tools.length})`);
      const shown = names.slice(0, MAX_LIST_SERVERS_IN_DESCRIPTION).join(', ');
      const more = names.length > MAX_LIST_SERVERS_IN_DESCRIPTION ? `, and ${names.length - MAX_LIST_SERVERS_IN_DESCRIPTION} more` : '';
      return {
        name: DISPATCH_TOOL_NAME,
        title: 'Find and call tools',
        description:
          'Reaches tools that are not listed directly. ' +
          (names.length > 0 ? `Servers behind it: ${shown}${more}. ` : '') +
          'First "search" (or "list") to find a tool: a few words for the action and its object ("delete file", ' +
          '"list open issues"), not a whole sentence; results say which words matched. "describe" a tool to see its parameters, then "call" it with ' +
          '{"action":"call","name":...,"arguments":{...}}. "argumentsFrom" takes the arguments from a spilled JSON ' +
          'result\'s handle; "resultToSpill" keeps a large result aside. "read" reads a spilled result.',
        inputSchema: INPUT_SCHEMA,
        annotations: { openWorldHint: true },
      };
    },

    async handle(raw, ctx) {
      const args = raw ?? {};
      const action = ActionArgs.safeParse(args);
      if (!action.success) {
        return fail(`"action" must be one of ${DISPATCH_ACTIONS.join(', ')}.`);
      }
      // Search (and the "did you mean" of an unknown name) reads its word table once: not on the main thread's clock.
      if (action.data.action !== 'list' && action.data.action !== 'read') await ToolSearch.prepare();
      switch (action.data.action) {
        case 'list':
          return list(args);
        case 'search':
          return searchTools(args);
        case 'describe':
          return describe(args);
        case 'call':
          return call(args, ctx as Ctx);
        case 'read':
          return read(args, ctx as Ctx);
      }
    },
  };
}

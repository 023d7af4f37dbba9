import { z } from 'zod';

export const READ_RESULT_TOOL_NAME = 'spillway__read_result';

/**
 * How previews name the read tool. Clients show MCP tools under their own prefix (Claude Code
 * `mcp__spillway__spillway__read_result`, Gemini CLI `mcp_spillway_spillway__read_result`), so the bare
 * name is not one the model can call in every client; its ending is (issue 13 item 8).
 */
export const READ_RESULT_TOOL_REFERENCE = `the tool whose name ends in ${READ_RESULT_TOOL_NAME}`;

export const READ_OPS = ['stat', 'head', 'tail', 'slice', 'grep', 'query', 'read'] as const;
export type ReadOp = (typeof READ_OPS)[number];

/** The MCP tool definition of Spillway's read-back tool (tools/list entry). */
export const READ_RESULT_TOOL = {
  name: READ_RESULT_TOOL_NAME,
  title: 'Read a spilled result',
  description:
    'Reads part of a tool result that Spillway kept aside (too large for the context, or kept as the call or its policy asked). ' +
    "Pass the handle from the result's header and one op: " +
    'stat (sizes, line count, tokens, content type, JSON top-level keys); ' +
    'head / tail (first or last `lines` lines, default 50); ' +
    'slice (lines `start` to `end`, 1-based, inclusive); ' +
    'grep (lines matching the regex `pattern`, case-insensitive unless `caseSensitive`, with `context` lines around, at most `maxMatches`; RE2 syntax: no lookahead or backreferences); ' +
    'query (JSON only: a JSON Query expression such as `.items | filter(.status == "error") | pick(.id, .message)`, or a simple path such as `$.items[0].name`); ' +
    'read (raw text from the character `offset`, up to `maxTokens` tokens; says the next offset). ' +
    'Output is capped at about 8,000 tokens; narrow the request when it says so.',
  inputSchema: {
    type: 'object' as const,
    properties: {
      handle: { type: 'string', description: 'The handle from the spilled result, e.g. "k3j5x2abq7mz".' },
      op: { type: 'string', enum: [...READ_OPS], description: 'What to read.' },
      lines: { type: 'integer', minimum: 1, description: 'head/tail: how many lines (default 50).' },
      start: { type: 'integer', minimum: 1, description: 'slice: first line, 1-based.' },
      end: { type: 'integer', minimum: 1, description: 'slice: last line, inclusive (default start + 99).' },
      pattern: {
        type: 'string',
        description: 'grep: a regular expression as in JavaScript, run in linear time (RE2): lookbehind works, lookahead and backreferences do not.',
      },
      caseSensitive: { type: 'boolean', description: 'grep: match case (default false).' },
      context: { type: 'integer', minimum: 0, maximum: 20, description: 'grep: lines of context around each match (default 0).' },
      maxMatches: { type: 'integer', minimum: 1, maximum: 1000, description: 'grep: most matching lines to show (default 50).' },
      query: { type: 'string', description: 'query: a JSON Query expression (jsonquerylang.org) or a path like $.a.b[0].' },
      offset: { type: 'integer', minimum: 0, description: 'read: character offset to start from (default 0).' },
      maxTokens: { type: 'integer', minimum: 1, description: 'read: most tokens to return (default 2,000).' },
      view: {
        type: 'string',
        enum: ['json'],
        description:
          'head/tail/slice/grep of a JSON result shown as TOON rows: "json" reads the lines of its JSON text instead (the numbers grep gives when no TOON row matches).',
      },
    },
    required: ['handle', 'op'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.number().int().min(min).max(max);

/** Validation of the tool's arguments (the inputSchema above, as zod). */
export const ReadResultArgs = z.strictObject({
  handle: z.string(),
  op: z.enum(READ_OPS),
  lines: int(1).optional(),
  start: int(1).optional(),
  end: int(1).optional(),
  pattern: z.string().optional(),
  caseSensitive: z.boolean().optional(),
  context: int(0, 20).optional(),
  maxMatches: int(1, 1000).optional(),
  query: z.string().optional(),
  offset: int(0).optional(),
  maxTokens: int(1).optional(),
  view: z.enum(['json']).optional(),
});
export type ReadResultArgs = z.infer<typeof ReadResultArgs>;

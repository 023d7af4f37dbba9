/**
 * Result stage: a hidden parameter's secret value (an API key, a token, a password a call injects) never
 * reaches the model, even when the upstream quotes it back ("invalid key sk-…"): in everything given back
 * for that call — a result's texts, structuredContent and embedded resources, an error result, a JSON-RPC
 * error's message and data, progress messages — it is replaced by a placeholder that names its parameter,
 * `[hidden: api_key]`. A hidden value is a secret when its parameter's name (or a key inside the value)
 * says so — `api_key`, `token`, `password`, `auth`, or one of the few names that mean a credential
 * (`key`, `license_key`; not `project_key` or `sort_key`) — or when the text has a known credential's
 * shape (`sk-…`, `ghp_…`). Other hidden values are settings (`owner: "octocat"`, a root folder): they
 * stay as the server wrote them, since replacing them would garble ordinary answers (every link to the
 * owner's repositories, every path under the folder). A short secret is replaced only as a whole token
 * (WHOLE_TOKEN_BELOW): a PIN `1234` stays inside `912345`, `PROJ` inside `PROJ-101`. The same secrets
 * are masked by the event log and in an upstream's relayed log messages (policy/hidden-secrets.ts decides
 * which they are). It runs before the result is shaped, so a spilled copy (what read_result gives back
 * later) and the log's `call.finished` hold the placeholder too. The replacing is secret-values.ts's (the
 * event log's masking by value), given other replacements.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MIN_WORD_SECRET_CHARS, valueReplacer, type ValueMask, type ValueOccurrence } from '../log/secret-values.js';
import { hiddenSecretTexts } from '../policy/hidden-secrets.js';
import type { CallPolicy } from '../policy/resolve.js';
import { rpcError } from './relay-errors.js';
import { UpstreamFailure } from './upstream-call.js';

/**
 * Secret texts shorter than this are not replaced. A value of two or three characters (`en`, `v2`)
 * is found inside ordinary words and numbers of nearly any answer, which would be garbled; a value that
 * short is no secret worth hiding either (it is guessed at once). Four characters (a PIN) are replaced:
 * the user hid them on purpose. Numbers and booleans are never replaced (a hidden `limit: 50`
 * would blank every "50"); only texts, at any depth of a hidden value.
 */
export const MIN_HIDDEN_CHARS = MIN_WORD_SECRET_CHARS;

/**
 * Secret texts shorter than this are replaced only where they stand as a whole token: not preceded or
 * followed by a letter, digit, `_` or `-` (a PIN `1234` inside the number `912345`, a key `PROJ` inside
 * the id `PROJ-101` are other things). Longer ones are replaced wherever they appear.
 */
export const WHOLE_TOKEN_BELOW = 12;

/**
 * Whether a call of a tool under this policy has hidden secrets to replace in what goes back (exactly
 * when hiddenValueMask gives a mask): its result may then differ from the upstream's, so its outputSchema
 * is not listed (hub/catalog-rebuild.ts).
 */
export function hidesSecrets(values: Pick<CallPolicy, 'hiddenParams'> | undefined): boolean {
  const hidden = values?.hiddenParams;
  return !!hidden && hasAny(hidden) && hiddenSecretTexts(hidden).some((s) => s.text.trim().length >= MIN_HIDDEN_CHARS);
}

/**
 * One replacer for the hidden secrets of several policies (an upstream's log message may quote a secret
 * of any of its tools); undefined when they have none to replace.
 */
export function hiddenSecretsMask(policies: Iterable<Pick<CallPolicy, 'hiddenParams'>>): ValueMask | undefined {
  const pairs: [string, string][] = [];
  for (const p of policies) for (const { text, param } of hiddenSecretTexts(p.hiddenParams)) pairs.push([text, `[hidden: ${param}]`]);
  return valueReplacer(pairs, MIN_HIDDEN_CHARS, WHOLE_TOKEN_BELOW);
}

/** The replacer of each policy's hidden values (a policy object lives as long as its config); null: none to replace. */
const masks = new WeakMap<CallPolicy, ValueMask | null>();

/**
 * What replaces this call's hidden values in what goes back; undefined when the call injects no secret (or
 * only secrets too short to replace), so a call without hidden parameters does no work for them.
 */
export function hiddenValueMask(values: CallPolicy | undefined): ValueMask | undefined {
  const hidden = values?.hiddenParams;
  if (!hidden || !hasAny(hidden)) return undefined;
  let mask = masks.get(values);
  if (mask === undefined) {
    mask = hiddenSecretsMask([values]) ?? null;
    masks.set(values, mask);
  }
  return mask ?? undefined;
}

/**
 * The hidden secrets of each server's tools as one replacer per server, for what a server sends outside
 * any call (its log messages may quote a secret of any of its tools). Rebuilt only when the policies of
 * its tools that hide secrets changed (a config change replaces them).
 */
export class ServerSecrets<E extends { serverId: string }> {
  readonly #last = new Map<string, { policies: CallPolicy[]; mask: ValueMask | undefined }>();

  constructor(
    private readonly entries: () => Iterable<E>,
    private readonly policyOf: (entry: E) => CallPolicy | undefined,
  ) {}

  /** The replacer of this server's tools' hidden secrets; undefined when they have none. */
  mask(serverId: string): ValueMask | undefined {
    const policies: CallPolicy[] = [];
    for (const entry of this.entries()) {
      if (entry.serverId !== serverId) continue;
      const policy = this.policyOf(entry);
      if (hiddenValueMask(policy)) policies.push(policy!);
    }
    const last = this.#last.get(serverId);
    if (last && last.policies.length === policies.length && last.policies.every((p, i) => p === policies[i])) return last.mask;
    const mask = policies.length > 0 ? hiddenSecretsMask(policies) : undefined;
    this.#last.set(serverId, { policies, mask });
    return mask;
  }
}

/**
 * `result` with the hidden values replaced in every text it holds (binary data left as it is); the same
 * object when none is in it. A value split across adjacent text blocks (one ends with its first part, the
 * next begins with the rest) is replaced too: a model reads the blocks in sequence, so it would see it
 * whole. See hideAcrossBlocks.
 */
export function hideInResult(mask: ValueMask, result: CallToolResult): CallToolResult {
  const content = hideAcrossBlocks(mask, result.content);
  return hideWithin(mask, content === result.content ? result : { ...result, content }, 0);
}

type Content = CallToolResult['content'];

/**
 * `content` with each hidden value that crosses from one text block into the next replaced: the block it
 * starts in holds the placeholder in place of its first part, the blocks after lose the rest (so the
 * texts read in sequence hold the placeholder once, as a value inside one block would). A value within
 * one block is left for hideWithin. The joined texts of adjacent text blocks are searched once (a cost
 * linear in their length, as masking each block is); the same array when no value crosses.
 */
function hideAcrossBlocks(mask: ValueMask, content: Content): Content {
  if (!mask.find || !Array.isArray(content) || content.length < 2) return content;
  let out: Content | undefined;
  for (let start = 0; start < content.length;) {
    let end = start;
    while (end < content.length && isText(content[end])) end++;
    if (end - start >= 2) {
      const texts = (content.slice(start, end) as { text: string }[]).map((b) => b.text);
      for (const [i, text] of hideInRun(mask, texts)) (out ??= content.slice())[start + i] = { ...content[start + i], text } as Content[number];
    }
    start = end === start ? start + 1 : end;
  }
  return out ?? content;
}

function isText(block: unknown): block is { type: 'text'; text: string } {
  const b = block as { type?: unknown; text?: unknown } | null;
  return typeof b === 'object' && b !== null && b.type === 'text' && typeof b.text === 'string';
}

/** The new texts (by index in `texts`) of the blocks that a value crossing a boundary between them touches. */
function hideInRun(mask: ValueMask, texts: string[]): Map<number, string> {
  const offsets: number[] = [];
  let total = 0;
  for (const text of texts) offsets.push((total += text.length) - text.length);
  // The last block starting at or before `pos` (the one holding it, for pos < total).
  const blockAt = (pos: number) => {
    let lo = 0;
    let hi = texts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (offsets[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  // Occurrences crossing a boundary, by where they start in the joined texts: one search of the joined
  // texts (as the model reads them, and as one block holding them all would be masked), so the cost is
  // that of masking them, whatever the number of blocks or the length of the values.
  const crossing = new Map<number, ValueOccurrence>();
  for (const found of mask.find!(texts.join(''))) {
    if (found.length > 0 && blockAt(found.index) !== blockAt(found.index + found.length - 1)) crossing.set(found.index, found);
  }
  const out = new Map<number, string>();
  if (crossing.size === 0) return out;
  // Edits per block, as [from, to, replacement] in the block's own text, in order.
  const edits = new Map<number, [number, number, string][]>();
  const edit = (block: number, from: number, to: number, replacement: string) => {
    const list = edits.get(block) ?? [];
    list.push([from, to, replacement]);
    edits.set(block, list);
  };
  let done = 0;
  for (const found of [...crossing.values()].sort((x, y) => x.index - y.index)) {
    if (found.index < done) continue; // overlaps one already replaced
    done = found.index + found.length;
    const first = blockAt(found.index);
    const last = blockAt(done - 1);
    edit(first, found.index - offsets[first], texts[first].length, found.replacement);
    for (let b = first + 1; b < last; b++) edit(b, 0, texts[b].length, '');
    edit(last, 0, done - offsets[last], '');
  }
  for (const [block, list] of edits) {
    let text = '';
    let from = 0;
    for (const [a, b, replacement] of list) {
      text += texts[block].slice(from, a) + replacement;
      from = b;
    }
    out.set(block, text + texts[block].slice(from));
  }
  return out;
}

/** A failed call's message and JSON-RPC error with the hidden values replaced. */
export function hideInFailure(mask: ValueMask, failure: UpstreamFailure): UpstreamFailure {
  const rpc = failure.rpc as (Error & { code?: number; data?: unknown }) | undefined;
  const hiddenRpc = rpc && rpcError(rpc.code ?? 0, mask.mask(rpc.message), rpc.data === undefined ? undefined : hideWithin(mask, rpc.data, 0));
  return new UpstreamFailure(mask.mask(failure.message), hiddenRpc);
}

const MAX_DEPTH = 64;

/** A copy of `value` (any JSON, e.g. a log message's data) with its texts replaced; the same value when none was. */
export function hideInValue<T>(mask: ValueMask, value: T): T {
  return hideWithin(mask, value, 0);
}

/** A copy of `value` with its texts replaced, sharing what did not change (the value itself when nothing did). */
function hideWithin<T>(mask: ValueMask, value: T, depth: number): T {
  if (typeof value === 'string') return mask.mask(value) as T;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const hidden = hideWithin(mask, item, depth + 1);
      if (hidden !== item) (out ??= value.slice())[i] = hidden;
    }
    return (out ?? value) as T;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const source = value as Record<string, unknown>;
  // An image's or audio's `data` and a resource's `blob` are base64 of binary content: not text to search.
  const binary = source.type === 'image' || source.type === 'audio';
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(source)) {
    if ((key === 'data' && binary) || key === 'blob') continue;
    const item = source[key];
    const hidden = hideWithin(mask, item, depth + 1);
    if (hidden === item) continue;
    // Defined, not assigned: a key "__proto__" (JSON.parse makes one) stays an own property.
    out ??= { ...source };
    Object.defineProperty(out, key, { value: hidden, enumerable: true, writable: true, configurable: true });
  }
  return (out ?? value) as T;
}

function hasAny(record: Record<string, unknown>): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return true;
  return false;
}

/**
 * Query intent for tool search (issue 17): whether a request reads, writes or deletes, from its verbs, and
 * what a tool does, from its annotations (readOnlyHint, destructiveHint) or, without them, its name's verb.
 * A clear intent nudges the ranking: "get rid of some records" should not rank `get_*` readers first.
 */
import { normalizeTerm, toolTerms } from './search-terms.js';
import { DEFAULT_WEIGHTS, type SearchWeights } from './search-weights.js';

export type Intent = 'read' | 'write' | 'delete';

const verbs = (words: string): Set<string> => new Set(words.split(' ').map((w) => normalizeTerm(w) ?? w));

const DELETE_VERBS = verbs('delete remove erase forget drop discard destroy purge wipe rid unlink unstar unstage reset undo break disconnect detach');
const WRITE_VERBS = verbs(
  'create make add new write save store put update edit change modify set rename move commit stage push insert append ' +
    'upload post record link connect assign merge approve close reopen star mark tag replace patch toggle enable ' +
    'disable trigger rerun retry cancel fork submit resolve request reply comment overwrite clear dismiss',
);
const READ_VERBS = verbs(
  'show list get read view find search look display print see check fetch download dump what which who when where how ' +
    'whats open browse recall inspect compare count select average',
);

/** The request's intent, or undefined when its verbs are mixed or missing. */
export function queryIntent(queryStems: string[]): Intent | undefined {
  const has = (set: Set<string>) => queryStems.some((s) => set.has(s));
  if (has(DELETE_VERBS)) return 'delete';
  const write = has(WRITE_VERBS);
  const read = has(READ_VERBS);
  if (write && !read) return 'write';
  if (read && !write) return 'read';
  return undefined;
}

export interface ToolKindInput {
  name: string;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

/** What a tool does: annotated hints first, else the verbs of its name. */
export function toolKind(tool: ToolKindInput): Intent {
  const words = toolTerms(tool.name).map((w) => normalizeTerm(w) ?? w);
  if (words.some((w) => DELETE_VERBS.has(w))) return 'delete';
  const hints = tool.annotations;
  if (hints?.readOnlyHint === true) return 'read';
  if (hints?.readOnlyHint === false) return 'write';
  return words.some((w) => WRITE_VERBS.has(w)) && !words.some((w) => READ_VERBS.has(w)) ? 'write' : 'read';
}

/** The factor a tool's score gets for a request's intent. */
export function intentFactor(intent: Intent | undefined, kind: Intent, f: SearchWeights['intent'] = DEFAULT_WEIGHTS.intent): number {
  if (intent === undefined) return 1;
  if (intent === 'delete') return kind === 'delete' ? f.deleteOnDelete : kind === 'read' ? f.deleteOnRead : f.deleteOnWrite;
  if (intent === 'write') return kind === 'read' ? f.writeOnRead : kind === 'delete' ? f.writeOnDelete : 1;
  return kind === 'read' ? 1 : f.readOnOther;
}

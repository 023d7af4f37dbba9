/**
 * Words for tool search (issue 17): splitting names and prose, stop words, Porter stems (the `stemmer`
 * package), and a small table of related words that tool descriptions and requests use for one another.
 * The table is software vocabulary WordNet lacks ("repo", "PR", "folder" for "directory"); WordNet's own
 * relations of common words (search-related.ts) reach further, for words the tools never use.
 */
import { stemmer } from 'stemmer';
import { wordnetRelated } from './search-related.js';
import { DEFAULT_WEIGHTS, type SearchWeights } from './search-weights.js';

/** Words too common in queries to say anything about a tool. */
const STOP_WORDS = new Set(
  (
    'a an and the of to in for on with or is it its my me i that this these those from by be are was at as into ' +
    'some any can could would should do does please using use via so then than just about there here you your we our ' +
    'most more very also too much did anything something whatever few since inside through onto regarding concerning ' +
    'they them their theirs he him his she her hers us'
  ).split(' '),
);

/**
 * Words that ask a question or carry a verb's particle ("what", "look up"): they tell the request's intent
 * (search-intent.ts) but say nothing about which tool, and in a description they match by accident.
 */
const QUESTION_WORDS = new Set('what whats which who whom whose when where why how have has am been being'.split(' '));

/** Whether a request's word only tells its intent (a question word), not which tool it wants. */
export function isQuestionWord(word: string): boolean {
  return QUESTION_WORDS.has(word.toLowerCase());
}

/** Splits `read_file`, `readFile`, `fs__list-dir` and prose into words (case kept). */
export function toolTerms(text: string): string[] {
  return text
    .replace(/\b([A-Z]{2,})s\b/g, '$1') // "PRs", "URLs"
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The normalized form of one word: lower case, stemmed; null for a stop word. */
export function normalizeTerm(word: string): string | null {
  const lower = word.toLowerCase();
  if (STOP_WORDS.has(lower)) return null;
  return /^[a-z]+$/.test(lower) ? stemmer(lower) : lower;
}

/**
 * Splits prose: on anything but letters and digits, keeping `GitHub` or `perPage` whole (in prose, a word
 * with inner capitals is a name: splitting it would let "git" reach every GitHub tool).
 */
export function proseTerms(text: string): string[] {
  return text.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** A text's stems in order (stop words dropped). */
export function stems(text: string): string[] {
  const out: string[] = [];
  for (const word of toolTerms(text)) {
    const stem = normalizeTerm(word);
    if (stem) out.push(stem);
  }
  return out;
}

/**
 * Groups of words that requests and tool definitions use for the same thing. Each word reaches the others
 * at a lower weight than an exact match; abbreviations sit with what they stand for.
 */
const RELATED: string[] = [
  '!delete remove erase forget drop discard destroy purge wipe rid unlink disconnect detach scrub',
  '!create make new add insert post publish',
  'append add attach',
  'all entire whole every',
  'multiple several many batch bulk together',
  'status state untracked dirty uncommitted clean',
  '!reaction react emoji thumbs upvote heart',
  '!color colour recolor',
  'write save store put persist overwrite',
  'edit modify change update patch alter replace reword rephrase refresh',
  '!title heading headline',
  'read open view show display print load dump cat contents',
  'get retrieve fetch obtain',
  'list enumerate ls listing',
  'latest newest recent last freshest fresh',
  'release version published stable',
  '!diff difference compare versus vs differ drift delta contrast',
  '!toggle enable disable activate deactivate',
  'row record entry',
  'table row column database sql',
  'knowledge know remember memory memorize memorise forget stored recall recollection saved jottings',
  '!authenticated login signin whoami',
  'search find locate lookup query grep seek discover hunt glob',
  '!folder directory dir',
  '!rename move relocate mv retitle',
  'link connect relate relation relationship associate tie',
  '!node entity entry person',
  'fact observation note',
  'insight memo',
  'image picture photo screenshot png jpg jpeg media',
  'audio sound mp3 wav m4a voicemail recording media',
  'web url page website site internet http html online download browse homepage',
  'time clock date now today evening morning night afternoon',
  '!current now present today',
  'timezone tz',
  '!repository repo',
  'base trunk upstream',
  '!pr pull',
  'issue bug ticket',
  'commit snapshot checkpoint revision checkin changeset landed',
  '!merge squash',
  'history log chronicle timeline',
  'unstage reset undo dequeue unprep',
  'sum add total plus calculate addition tally',
  'echo repeat',
  '!environment env variable',
  'compress gzip zip gz shrink',
  '!database db sql sqlite',
  'select query',
  'size space big large gigabytes megabytes bytes',
  'metadata info information details stat permission perms chmod timestamp',
  'comment reply',
  'approve review critique',
  '!sub child',
  'parent epic',
  '!approve lgtm bless',
  'reviewer approver vet',
  '!draft wip',
  '!close declined wontfix',
  'milestone deadline retarget due',
  '!discussion forum',
  'notification alert inbox unread ping',
  'unread unseen missed',
  'label tag',
  'user account profile username namespace',
  'team member org organization crew roster squad',
  'people member user collaborator folks',
  'tree structure hierarchy recursive layout subfolder subdirectory nested',
  'structured schema',
  'progress long slow',
  'research investigate',
  'workflow action ci pipeline build job',
  '!rerun retry redo',
  'fail failed crash error flaky',
  'vulnerability advisory cve security backdoor exploit',
  'secret leak credential key token password creds',
  '!dependabot dependency deps npm',
  'vulnerable insecure outdated',
  'gist snippet paste pastebin unlisted',
  '!fork duplicate',
  '!star favourite favorite bookmark',
  'secret scanning detector scanner',
  '!cancel abort',
  'color purple red green blue yellow orange grey gray pink',
  'project board kanban',
  '!assign delegate owner assignee',
  '!table dataset',
  '!column field datatype schema',
  'people member user collaborator granted contributor invited',
  '!copilot bot ai',
];

/** Per word, its related words, each a near-synonym (a group marked `!`) or not. */
const relatedIndex: Map<string, Map<string, boolean>> = (() => {
  const index = new Map<string, Map<string, boolean>>();
  for (const line of RELATED) {
    const strong = line.startsWith('!');
    const words = [
      ...new Set(
        line
          .replace(/^!/, '')
          .split(' ')
          .map((w) => normalizeTerm(w) ?? w),
      ),
    ];
    for (const w of words) {
      const related = index.get(w) ?? new Map<string, boolean>();
      for (const other of words) if (other !== w) related.set(other, strong || related.get(other) === true);
      index.set(w, related);
    }
  }
  return index;
})();

/**
 * The stems related to one stem (not including itself), each with the weight it counts for: the table
 * above, and with `general` also WordNet's (search-related.ts) — for a word the tools never use, where a
 * general synonym bridges the gap ("person" → "individual") without drowning a word they do use.
 */
export function relatedStems(
  stem: string,
  general = false,
  weights: SearchWeights['related'] = DEFAULT_WEIGHTS.related,
): ReadonlyMap<string, number> {
  const out = new Map<string, number>();
  for (const [other, strong] of relatedIndex.get(stem) ?? []) out.set(other, strong ? weights.strong : weights.weak);
  if (general) for (const other of wordnetRelated(stem)) if (!out.has(other)) out.set(other, weights.wordnet);
  return out;
}

/**
 * Reading a request for tool search (issue 17): phrases whose words would mislead one by one rewritten to
 * what they mean ("get rid of" is no `get_*`), values that are no words about a tool (a URL, a name given,
 * a database file) set apart, and "path", "directory" or "file" added when the request names one.
 */
import { proseTerms, toolTerms, normalizeTerm } from './search-terms.js';

/** A number in words, up to "ninety-nine" and "hundred". */
const NUMBER_WORD =
  '(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)(-\\w+)?';

/** Phrases whose words would mislead one by one ("get rid of" is no `get_*`, "open an issue" creates one). */
const PHRASES: [RegExp, string][] = [
  [/\bget rid of\b/gi, 'remove'],
  // "find" in a request is the verb of searching; as a stem it would reach the noun of `get_code_quality_finding`.
  [/\bfind\b/gi, 'search'],
  [/\bthrow (away|out)\b/gi, 'discard'],
  [/\bopen (a|an|new)\b/gi, 'create'],
  // "open issues", "closed pull requests": a state, not opening something.
  [/\b(open|closed|merged) (?=(issues|pull requests|prs|discussions|alerts|bugs|tickets)\b)/gi, 'state '],
  // "who am I", "logged in as": the account the request runs as.
  [/\bwho am i\b/gi, 'authenticated user profile'],
  // "what hour is it", "what's the time in Tokyo", "right now": the time at present, not a conversion.
  [/\bwhat (time|hour|day|date) is it\b|\bwhat (is )?the (time|hour)\b/gi, 'current time'],
  [/\b(right now|at (the|this) moment|currently)\b/gi, 'current'],
  // "3pm in London", "9:30 Berlin time": a clock time given is one to convert.
  [/\b\d{1,2}(:\d\d)? ?(am|pm)\b|\b\d{1,2}:\d\d\b|\b(half|quarter) (past|to) \w+\b|\b\w+ o'?clock\b/gi, 'time convert'],
  // "the time difference between", "how far apart are the clocks", "hours ahead": a conversion between zones.
  [/\btime difference\b|\bhow far apart\b|\bhours? (apart|ahead|behind)\b/gi, 'convert time'],
  // "file a bug", "report an issue", "raise a ticket": a new issue ("file" is the verb, not a file).
  [/\b(file|report|raise|log|submit) (a|an|new) (new )?(bug|issue|ticket)\b/gi, 'create issue'],
  // "the last few commits", "who changed what": the history of commits.
  [
    /\b(last|recent|latest) (few |\d+ |handful of |couple of )?(commits|revisions|changesets)\b|\bwho (changed|made|committed|touched)\b(?!.*\b(lines?|L\d+)\b)/gi,
    'commit log history',
  ],
  // "hop over to the release branch", "go back to main branch": switching branches; "hop onto hotfix/cart",
  // "switch over to release-2": onto a branch, though the request may not say so.
  [
    /\b(hop|go|jump|move|switch|change)( over| back)? to\b(?=.*\bbranch\b)|\b(hop|jump|switch|flip)( the \w+)?( over)? (on)?to\b/gi,
    'checkout switch',
  ],
  // "cut feat/x from develop", "branch off release": a new branch.
  [/\b(cut|spin off|branch off)\b(?= \S+ from\b)/gi, 'create branch'],
  // "where did I put the budget file", "look through my documents": finding files, not moving them.
  [/\bwhere (did|do|does|is|are)( (i|we|it|they))?( (put|leave|left|save|saved|keep|kept|store|stored))?\b|\blook(ing)? (through|for)\b/gi, 'search'],
  // "what do you know about X", "did I ever mention Sam's contractor", "recall my landlord's details",
  // "anything I told you": a look-up in what was kept, not a question about knowing.
  [
    /\bwhat do you (know|remember) about\b|\bdid i (ever )?(mention|tell you|say)\b|\b(recall|remind me( of| about)?|(i|we) told you)\b/gi,
    'search knowledge',
  ],
  // "check your notes", "my saved notes": to an assistant, what it keeps in memory.
  [/\b(your|my|our|saved) (notes|memory|memories)\b/gi, 'knowledge memory'],
  // "jot down that Dana prefers email", "record that the meeting moved", "stash the fact that ...": a fact to
  // keep, whose own words ("moved", "email") say nothing about the tool.
  [
    /\b(jot down|write down|note down|make a note|take note|note|record|remember|keep in mind|memorize)( for later)? that\b(?! (connection|link|relation|relationship|tie)s?\b).*$|\b\w+ the fact that\b.*$/gi,
    'add observation knowledge',
  ],
  // "Dana prefers calls after 2pm, keep that in mind": the same, the fact told first.
  [/^.*\b((keep|bear) (that|this|it) in mind\b.*|(store|save|remember|note|record) (that|this)\W*)$/gi, 'add observation knowledge'],
  // "issues mentioning a leak", "files containing TODO": a search through what things say.
  [/\b(mentioning|containing|matching|that (mention|contain|match)s?|end(s|ing)? (in|with)|start(s|ing)? with)\b/gi, 'search'],
  [/\b(logged|signed|log|sign) (in|on)\b/gi, 'authenticated'],
  // "everything you remember", "commit everything": a quantifier, not the server called everything.
  [/\beverything\b(?!\s+(server|tools?|mcp)\b)/gi, ''],
  // "no longer coworkers", "her employer", "Sam's manager": how two people relate.
  [/\b(co-?workers?|colleagues?|employers?|employees?|bosse?s?|managers?|friends?|spouses?|married|mentors?|coach(es)?)\b/gi, 'relation'],
  // "unlink them", "break the link", "remove that link": a relation to delete, not a file or a URL.
  [/\bunlink\b|\bbreak (the |a |that )?(link|connection|tie)s?\b|\b(remove|delete|drop) (the |a |that |this )?link\b/gi, 'delete relation'],
  // "clear out my inbox", "clear my notifications": mark them all read, not delete anything.
  [/\bclear (out )?(my |the |all )?(github )?(inbox|notifications)\b/gi, 'mark all notifications read'],
  // "stop getting pinged about this repo", "unwatch that repo", "mute it": a subscription to ignore.
  [/\bstop (getting|receiving|watching|following)\b|\b(unwatch|unsubscribe|mute)\b/gi, 'ignore watch subscription'],
  // "would she be asleep", "too late to call Tokyo", "is it evening yet in Nairobi", "a decent hour there",
  // "would I be waking her up": what time it is there now.
  [
    /\b(asleep|awake|bedtime|too (late|early) to)\b|\bis it (already |still |yet )?(evening|morning|night|afternoon|daytime|lunchtime|midnight|late|early)\b|\b(decent|reasonable|good|polite|sensible|civil) (hour|time) (there|to)\b|\bwak(e|ing) (\w+ )?up\b|\bwake (him|her|them|someone|anyone)\b/gi,
    'current time',
  ],
  // "in my clone", "this checkout", "the working copy": the repository on disk, which the git server serves.
  [/\b(my|this|the|our|local|offline) (clone|checkout|working (copy|tree))\b/gi, 'git repository'],
  // "turn logging on": a switch, not a turn.
  [/\b(turn|switch) on\b/gi, 'enable'],
  [/\b(turn|switch) off\b/gi, 'disable'],
  [/\b(turn|switch) (\w+) on\b/gi, 'enable $2'],
  [/\b(turn|switch) (\w+) off\b/gi, 'disable $2'],
  // "mark the pile as seen": read.
  [/\bas seen\b/gi, 'as read'],
  // "a write-up": a report, not writing.
  [/\bwrite-?ups?\b/gi, 'report'],
  // "@contoso/platform-eng": a team.
  [/@[\w-]+\/[\w-]+/g, 'team members'],
  // "#88": an issue or pull request by its number.
  [/(^|\s)[\w.-]*#\d+\b/g, '$1number'],
  // "a1b2c3d": a commit by its hash.
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g, 'commit'],
  // "the top of nginx.conf", "the first lines": its head.
  [/\b(the )?(top|beginning|first (few |\d+ )?lines) of\b/gi, 'head of'],
  // "the last 20 lines of app.log": its tail.
  [/\b(the )?(last|final|concluding|closing) (\w+ )?(lines|entries|rows) of\b/gi, 'tail of'],
  // "third-party libraries used by the shop": its dependencies.
  [/\bthird[- ]party (librar(y|ies)|packages?|code|deps)\b|\blibraries used by\b/gi, 'dependencies'],
  // "game engine projects on GitHub": repositories.
  [/\bprojects? on github\b/gi, 'repositories github'],
  // "mark order 5 as shipped in the db": an update to run.
  [/\b(mark|flag)\b(?=.*\b(rows?|tables?|database|db)\b)/gi, 'update'],
  // "*.psd", "**/*.tf": a pattern of file names to search for.
  [/(^|\s)(\*\*\/)?\*\.\w+/g, ' search files pattern'],
  // "kick off deploy.yml": run a workflow.
  [/\bkick(ed|ing|s)? off\b/gi, 'trigger run'],
  // "diff --cached": what is staged.
  [/--(cached|staged)\b/gi, 'staged'],
  // "is it read-only": its permissions.
  [/\bread-only\b|\bwritable\b/gi, 'permissions'],
  // "the PR fell behind develop": its branch to update from the base.
  [
    /\b(fell|fallen|falls|falling|is|got|gotten|lags?|lagging) behind\b|\blags\b|\bout of date with\b|\bcatch(-| )?up\b/gi,
    'update branch latest base',
  ],
  // "whose hands wrote L110-L130", "who last changed lines 40-80": a blame.
  [/\bwho(se \w+)? (last )?(wrote|authored|touched|changed)\b(?=.*\b(lines?|L\d+)\b)/gi, 'blame'],
  [/\bL\d+(-L?\d+)?\b/g, 'lines'],
  // "sandboxed to": the folders allowed.
  [/\bsandbox(ed)?\b/gi, 'allowed directories'],
  // "move HEAD onto feat/x": a checkout.
  [/\b(move|point|set|put) HEAD\b/g, 'checkout'],
  // "v1.0", "v2.4.1": a version, which a tag or release names.
  [/\bv\d+(\.\d+)+\b/gi, 'version tag'],
  // "usages of parseConfig": a search through code.
  [/\busages? of\b/gi, 'search code'],
  // "seventeen plus twenty-five": a sum.
  [new RegExp(`\\b${NUMBER_WORD} (plus|and|\\+) ${NUMBER_WORD}\\b`, 'gi'), 'sum numbers'],
  // "sign off on #42", "give it the green light": an approving review.
  [/\bsign (off|it off)\b|\bgreen light\b/gi, 'approve'],
  // "my own copy of torvalds/linux", "a personal version": a fork.
  [/\b(own|personal) (copy|version|duplicate)\b/gi, 'fork'],
  // "mark it done", "will never happen": closing an issue.
  [/\b(mark(ed)? (it |this |them )?(as )?done|never (going to )?(happen|do|be done|be fixed)|won(t)?[- ]?do|shelve)\b/gi, 'close'],
  // "rename that ticket": its title.
  [
    /\b(rename|retitle)\b(?=.*\b(issue|ticket|bug|pr|pull request)s?\b)|(?<=\b(issue|ticket|bug|pr|pull request)s?\b.*)\b(rename|retitle)\b/gi,
    'update title',
  ],
  // "which paths did PR 5 touch", "files changed in pull 9": the pull request's files.
  [
    /\b(touch(ed|es)?|chang(ed|es)|modif(y|ies|ied)|alter(s|ed)?)\b(?=.*\b(pull|pr)\b)|(?<=\b(pull|pr)\b.*)\b(touch(ed|es)?|chang(ed|es)|modif(y|ies|ied)|alter(s|ed)?)\b/gi,
    'get files',
  ],
  // "API_BASE_URL", "NODE_ENV": an environment variable's name.
  [/\b[A-Z][A-Z0-9]*(_[A-Z0-9]+)+\b|\b(PATH|HOME|LANG|TZ|SHELL|USER|PWD|TERM)\b/g, 'environment variable'],
  // "PR" is two words in the tools' text ("pull request"), and a shell command names what it does.
  [/\bPRs\b/gi, 'pull requests'],
  [/\bPR\b/gi, 'pull request'],
  [/\bmkdir\b/gi, 'create directory'],
  [/\brmdir\b/gi, 'delete directory'],
  [/\brm\b/gi, 'delete'],
  [/\bcp\b/gi, 'copy'],
  [/\bls\b/gi, 'list'],
  // "read this web page", "grab the article", "the docs online": a page on the web, which a URL names.
  [/\b(web ?pages?|web ?sites?|articles?|blog posts?|online)\b/gi, 'url internet'],
  // "remove old rows from the sessions table", "update prices in the products table": a statement to run.
  [
    /\b(select|insert|update|delete|drop|alter|truncate|remove|change|raise|lower|increase|decrease|bump|set|apply|fix|correct)\b(?=.*\b(rows?|tables?|database|db)\b)/gi,
    '$1 query',
  ],
  // "who has access to this repo", "who can push to it": the people let in, not the verb they may do.
  [
    /\b(who|which (people|users|accounts)|people)( \w+){0,2} (has|have|can|may|gets?) (\w+ )?(access|push|write|commit|contribute|edit)\b/gi,
    'collaborators access',
  ],
  // "how big is it", "take up the most space": a size.
  [/\bhow (big|large)\b|\b(disk )?space\b|\bdisk usage\b/gi, 'size'],
  // "how old is it": when it was made.
  [/\bhow old\b/gi, 'creation time'],
  // "what's ready to be committed", "about to commit": what is staged.
  [/\b(ready|about|going) to (be committed|commit)\b/gi, 'staged'],
  // "undo git add", "take the files back out of staging": unstaging.
  [/\bundo (git )?add\b|\bout of (the )?(staging( area)?|next commit)\b/gi, 'reset'],
  // In the tools' text "pull" is only ever a pull request's: "pull up the entries" shows them, "pull the
  // page from" fetches it.
  [/\bpull (\w+ )?up\b/gi, 'show'],
  // "pull 342", "pull #88": a pull request by its number.
  [/\bpull (?=#?\d)/gi, 'pull request '],
  [/\bpull\b(?!\s+requests?\b)/gi, 'fetch'],
  // "a new local branch", "which branches exist locally": the repository on disk, which the git server serves.
  [/\blocal(ly)?\b(?=.*\b(branch(es)?|commits?|repo(sitory)?)\b)|(?<=\b(branch(es)?|commits?|repo(sitory)?)\b.*)\blocal(ly)?\b/gi, 'git'],
  // "this project" is the code at hand, and "Project Falcon" a name: neither is a GitHub Projects board.
  [/\b(this|the|my|our|that) project\b/gi, '$1 repository'],
  [/\b[Pp]roject (?=[A-Z])/g, ''],
  // "find open source projects about weather": repositories on a topic, not Projects boards.
  [/\b(open[- ]source )?projects? (?=(about|related to|using|written in)\b)/gi, 'repositories '],
  // "open source kanban apps", "a Rust crate for parsing PDFs": code others publish, which lives in repositories.
  [/\bopen[- ]source\b/gi, 'repositories'],
  [
    /\b(librar(y|ies)|crates?|packages?|apps?|frameworks?)\b(?= (out there |available )?(for|about|related to|using|written in|that)\b)/gi,
    'repositories',
  ],
  // "a JOIN", "grouped per SKU", "order by date": SQL to run.
  [/\b(join|group(ed)? (by|per)|order(ed)? by)\b/gi, 'sql query'],
  // "the folders this app can see": the directories it is allowed to reach.
  [
    /\b(folders?|directories|dirs|drives?)\b(.*)\b((can|may|could) (see|access|reach|touch)|(been )?(granted|allowed|permitted))\b/gi,
    '$1$2 allowed access',
  ],
  // "how many customers ... in the database", "total sales per region from the sales table": a SELECT to run.
  [/\b(how many|count|number of|total|average|sum of|per)\b(?=.*\b(tables?|database|db|rows?|records?)\b)/gi, 'select query'],
  // "add 17 and 25", "total up 4 and 9", "3 plus 4": arithmetic on the numbers given.
  [/\b(add|sum|total(?: up)?)\s+-?\d+(\.\d+)?\s*(and|\+|to|plus)\s*-?\d+|-?\d+(\.\d+)?\s*(\+|plus)\s*-?\d+/gi, 'sum numbers'],
];
/** A path or file name in a request (`config.yaml`, `src/app.ts`): the request is about a file. */
const PATH_LIKE = /(^|\s)[\w.~-]*((\/[\w.-]+)+\/?|\.[a-z][a-z0-9]{0,4})(?=$|[\s,;:!?'")])/i;
/** A path from the home or current folder, or the root, with no extension at its end: a folder (`./static/img`, `~/Downloads`). */
const FOLDER_PATH = /(^|\s)(~|\.{1,2})?\/([\w-]+\/)*[\w-]*\/?(?=$|[\s,;:!?'")])/;
/** A URL, which names a page, not a file, whatever it ends with. */
const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S*/gi;
/** A site named without its scheme (`example.com/docs`, `lobste.rs`): a page too. */
const DOMAIN = /\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|rs|ai|co|app|edu|gov|info|me|xyz|uk|de|fr|news)\b(?:\/\S*)?/gi;
/** A database file (`inventory.db`, `shop.sqlite`): a database, not a file to read. */
const DB_FILE = /[\w./~-]*\.(db|sqlite3?)\b/gi;
/** Files known by a name without an extension, and file types named bare ("every png under assets"). */
const FILE_WORD =
  /\b(readme|license|makefile|dockerfile|changelog|spreadsheets?|docx|xlsx|pngs?|jpe?gs?|gifs?|pdfs?|csvs?|svgs?|mp3s?|mp4s?|m4as?|wavs?|txt|ya?ml)\b/i;
/** A name given in a request: the word, or the quoted words, after "called", "named" or "titled". */
const NAME_VALUE = /\b(called|named|titled)\s+("[^"]*"|'[^']*'|\S+)/gi;
/** A name with an extension (`notes.md`, `src/app.ts`) is a file's; `Europe/Paris` or `owner/repo` is not. */
const FILE_NAME = /(^|[\s/])[\w-]+\.[a-z][a-z0-9]{0,4}(?=$|[\s,;:!?'")])/i;

/**
 * A request's words: phrases rewritten, "path" added when it names one and "file" when it names a file. `known` says whether the
 * tools use a word whole: then a word with inner capitals is a name (`GitHub`), not parts (`git`, `hub`).
 */
export function queryWords(query: string, known: (stem: string) => boolean = () => false): string[] {
  // Contractions ("what's", "don't") would leave a stray "s" or "t".
  let text = query.replace(/['\u2019](s|t|re|ve|ll|d|m)\b/gi, '');
  // A URL's parts ("https", "example", "com") match tools by accident; that the request names one does not.
  text = text.replace(URL, ' url internet ').replace(DOMAIN, ' url internet ').replace(DB_FILE, ' database ');
  // The name a request gives a thing ("a label called needs-triage") is a value, not a word about the tool;
  // "named" says the tool takes names, "called" says nothing.
  // A file's name (`receipt.jpg`) stays: its extension says what kind of file.
  text = text.replace(NAME_VALUE, (_, word: string, name: string) =>
    [word.toLowerCase() === 'named' ? word : '', FILE_NAME.test(` ${name}`) ? name : ''].join(' '),
  );
  for (const [pattern, replacement] of PHRASES) text = text.replace(pattern, replacement);
  // A request may name a tool (`readFile`, `read_file`): its parts count as well as the whole word.
  const words = proseTerms(text).flatMap((w) => {
    const parts = toolTerms(w);
    if (parts.length > 1 && /[a-z][A-Z]/.test(w)) return known(normalizeTerm(w) ?? '') ? [w] : [w, ...parts];
    return parts;
  });
  const bare = query.replace(URL, ' ').replace(DOMAIN, ' ').replace(DB_FILE, ' ');
  if (PATH_LIKE.test(bare)) words.push('path');
  if (FOLDER_PATH.test(bare)) words.push('directory');
  if (FILE_NAME.test(bare) || FILE_WORD.test(bare)) words.push('file');
  return words;
}

/**
 * The add/edit server form as a model: fields bound to inputs, validation with the contract's own
 * ServerConfigSchema (so the form and the hub agree), and filling from a pasted snippet (snippet-parse.ts).
 * Fields are public $state because the form binds them; everything derived stays private.
 */
import {
  ServerConfigSchema,
  SERVER_ID_PATTERN,
  describeZodError,
  uniqueServerId,
  unsendableHeaders,
  type ServerConfig,
  type ServerConfigInput,
} from '../../../shared/config.js';
import { leadingEnv, splitCommandLine } from './snippet-command.js';
import { parseSnippet, type SnippetPlaceholder, type SnippetServer } from './snippet-parse.js';

export { parseSnippet, type SnippetPlaceholder, type SnippetServer };

export type ServerKind = 'stdio' | 'http' | 'sse';

/** One row of an env or headers editor. */
export interface PairRow {
  key: string;
  value: string;
  /** Shown as a password field until the user reveals it. */
  masked: boolean;
}

export interface DraftProblem {
  field: string;
  message: string;
}

const SECRET_KEY = /(key|token|secret|passw|pwd|auth|credential|cookie|session|bearer)/i;

/** Whether a variable or header name suggests a secret, so its value starts masked. */
export function looksSecret(key: string): boolean {
  return SECRET_KEY.test(key);
}

function rows(map: Record<string, string> | undefined): PairRow[] {
  return Object.entries(map ?? {}).map(([key, value]) => ({ key, value, masked: looksSecret(key) }));
}

/** `list` with each of `env`'s variables set: in its row when there is one, else in a new row. */
function withVariables(list: PairRow[], env: Record<string, string>): PairRow[] {
  const out = list.filter((row) => row.key.trim() !== '' || row.value !== '');
  for (const [key, value] of Object.entries(env)) {
    const row = out.find((r) => r.key.trim() === key);
    if (row) row.value = value;
    else out.push({ key, value, masked: looksSecret(key) });
  }
  return out;
}

function toMap(list: PairRow[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of list) if (row.key.trim() !== '') out[row.key.trim()] = row.value;
  return out;
}

/**
 * The id a new server is saved under: a name that is already a free, valid id is used as is; otherwise
 * the id is made from it (and the caller keeps the name visible as the label).
 */
function idForName(name: string, takenIds: Iterable<string>): string {
  const taken = new Set(takenIds);
  return SERVER_ID_PATTERN.test(name) && !taken.has(name) ? name : uniqueServerId(name, taken);
}

export class ServerDraft {
  /** Fixed when editing an existing server. */
  readonly editingId: string | undefined;
  name = $state('');
  kind = $state<ServerKind>('stdio');
  command = $state('');
  /** One argument per line: no shell quoting to get wrong. */
  argsText = $state('');
  cwd = $state('');
  env = $state<PairRow[]>([]);
  url = $state('');
  headers = $state<PairRow[]>([]);
  /** Only for servers whose sign-in cannot register Spillway by itself (issue 15). */
  oauthClientId = $state('');
  enabled = $state(true);
  prefix = $state(true);
  #extra: Pick<ServerConfigInput, 'timeoutMs' | 'label'> = {};
  #problem = $state<DraftProblem | undefined>();
  /** Values the pasted snippet held stand-ins for: cleared, and said next to their field until typed. */
  #placeholders = $state<SnippetPlaceholder[]>([]);
  /**
   * The last command line splitCommand() split: as typed, the program it kept in Command, the variables
   * it moved to the environment, and the rows as they were before (for keepCommandWhole).
   */
  #split = $state<{ typed: string; program: string; variables: string[]; envBefore: PairRow[] } | undefined>();
  /** A command with spaces that stays whole: the one loaded for editing, or one the user chose to keep. */
  #wholeCommand: string | undefined;
  /** Editing: the revision of the config loaded (sent back on Save, so a change made elsewhere since is not undone). */
  #revision: string | undefined;
  /** Editing: the on/off switch as stored when the form was loaded (or last switched: see switched). */
  #storedEnabled: boolean | undefined;
  /** Editing: the headers as loaded (values masked); those left as they are are not checked (unsendableHeaders). */
  #storedHeaders: Record<string, string> | undefined;
  /** Save was refused: the server was changed after the form was loaded (the hub's words). */
  #conflict = $state<string | undefined>();
  /** The form was loaded again after a conflict: it says so while it stays open (until another conflict). */
  #reloaded = $state(false);

  constructor(editingId?: string, config?: ServerConfigInput, revision?: string) {
    this.editingId = editingId;
    this.#revision = revision;
    if (editingId) this.name = editingId;
    if (config) this.load(config);
    if (editingId) this.#noteStored(config);
    if (config?.type === 'stdio') this.#wholeCommand = config.command;
  }

  get revision(): string | undefined {
    return this.#revision;
  }
  get conflict(): string | undefined {
    return this.#conflict;
  }
  get reloaded(): boolean {
    return this.#reloaded;
  }

  /** Save was refused as the server was changed elsewhere: says so, and keeps what was typed until reload(). */
  setConflict(message: string | undefined): void {
    this.#conflict = message;
    if (message !== undefined) this.#reloaded = false;
  }

  /**
   * The server's on/off switch was used in this window while the form is open: when the form was loaded
   * from the config switched (`from`, its revision then), it takes the new revision, and the new state
   * unless Enabled was changed in the form; a Save is then not refused for the switch.
   */
  switched(from: string | undefined, enabled: boolean, revision: string | undefined): void {
    if (from === undefined || from !== this.#revision) return;
    if (this.enabled === this.#storedEnabled) this.enabled = enabled;
    this.#storedEnabled = enabled;
    this.#revision = revision;
  }

  /** Replaces what was typed with the server's config as stored now (after a conflict), and its revision. */
  reload(config: ServerConfigInput, revision: string | undefined): void {
    this.load(config);
    this.#noteStored(config);
    this.#wholeCommand = config.type === 'stdio' ? config.command : undefined;
    this.#split = undefined;
    this.#revision = revision;
    this.#conflict = undefined;
    this.#reloaded = true;
    this.setProblem(undefined);
  }

  #noteStored(config: ServerConfigInput | undefined): void {
    this.#storedEnabled = this.enabled;
    this.#storedHeaders = config?.type === 'stdio' ? undefined : config?.headers;
  }

  get problem(): DraftProblem | undefined {
    return this.#problem;
  }

  /** The field with a problem, in the form's own names (`command`, `url`, `env.KEY`, `name`). */
  get problemField(): string | undefined {
    return this.#problem?.field;
  }

  /** Shows an error (from validation or from the hub) at its field; the hub's `config.` prefix is dropped. */
  setProblem(problem: DraftProblem | undefined): void {
    if (!problem) {
      this.#problem = undefined;
      return;
    }
    this.#problem = { field: problem.field.replace(/^config\./, ''), message: problem.message };
  }

  /** The pasted stand-ins whose real value is still to be typed (their row is there and still empty). */
  get placeholders(): SnippetPlaceholder[] {
    return this.#placeholders.filter((p) => (p.field === 'env' ? this.env : this.headers).some((r) => r.key.trim() === p.key && r.value === ''));
  }

  /** The command line that was split into Command and Arguments, as typed; undefined once Command changes. */
  get splitFrom(): string | undefined {
    return this.#split && this.command === this.#split.program ? this.#split.typed : undefined;
  }

  /** The variables splitCommand() moved from the typed line to the environment (`API_KEY=… npx …`). */
  get splitVariables(): string[] {
    return this.splitFrom === undefined ? [] : this.#split!.variables;
  }

  /**
   * A whole command line typed in Command (`node /srv/index.js`, as READMEs print it) while Arguments
   * is empty: the first word stays as the program, the others go to Arguments, quotes read as a shell
   * reads them, and leading `NAME=value` words become environment variables (a shell would set them).
   * Without this the whole line is looked up as one program's name. Returns whether it split.
   */
  splitCommand(): boolean {
    const typed = this.command.trim();
    if (this.kind !== 'stdio' || this.argsText.trim() !== '' || !/\s/.test(typed) || typed === this.#wholeCommand) return false;
    let words: string[];
    try {
      words = splitCommandLine(typed);
    } catch {
      return false; // an unclosed quote: the line stays as typed
    }
    const { env, rest } = leadingEnv(words);
    const [program, ...args] = rest;
    const variables = Object.keys(env);
    if (program === undefined || (args.length === 0 && variables.length === 0)) return false;
    const envBefore = this.env.map((row) => ({ ...row }));
    this.command = program;
    this.argsText = args.join('\n');
    if (variables.length > 0) this.env = withVariables(this.env, env);
    this.#split = { typed, program, variables, envBefore };
    return true;
  }

  /** Undoes splitCommand(): the line was a program's path with spaces in it. */
  keepCommandWhole(): void {
    if (!this.#split) return;
    this.command = this.#wholeCommand = this.#split.typed;
    this.argsText = '';
    if (this.#split.variables.length > 0) this.env = this.#split.envBefore;
    this.#split = undefined;
  }

  /** Fills the fields from a config (edit, or a pasted snippet). */
  load(config: ServerConfigInput): void {
    this.#placeholders = [];
    this.kind = config.type;
    this.enabled = config.enabled ?? true;
    this.prefix = config.prefix ?? true;
    this.#extra = { timeoutMs: config.timeoutMs, label: config.label };
    if (config.type === 'stdio') {
      this.command = config.command;
      this.argsText = (config.args ?? []).join('\n');
      this.cwd = config.cwd ?? '';
      this.env = rows(config.env);
    } else {
      this.url = config.url;
      this.headers = rows(config.headers);
      this.oauthClientId = config.oauthClientId ?? '';
    }
  }

  /** The config as typed so far (not yet validated). */
  toInput(): ServerConfigInput {
    const common = { enabled: this.enabled, prefix: this.prefix, ...this.#definedExtra() };
    if (this.kind === 'stdio') {
      const args = this.argsText
        .split('\n')
        .map((a) => a.trim())
        .filter((a) => a !== '');
      return {
        type: 'stdio',
        command: this.command.trim(),
        args,
        env: toMap(this.env),
        ...(this.cwd.trim() ? { cwd: this.cwd.trim() } : {}),
        ...common,
      };
    }
    const clientId = this.oauthClientId.trim();
    return { type: this.kind, url: this.url.trim(), headers: toMap(this.headers), ...(clientId ? { oauthClientId: clientId } : {}), ...common };
  }

  #definedExtra(): Pick<ServerConfigInput, 'timeoutMs' | 'label'> {
    const out: Pick<ServerConfigInput, 'timeoutMs' | 'label'> = {};
    if (this.#extra.timeoutMs !== undefined) out.timeoutMs = this.#extra.timeoutMs;
    if (this.#extra.label !== undefined) out.label = this.#extra.label;
    return out;
  }

  /**
   * Validates the config only (enough for Test). Sets and returns the problem, or the parsed config.
   */
  validateConfig(): ServerConfig | undefined {
    this.splitCommand();
    for (const row of this.kind === 'stdio' ? this.env : this.headers) {
      if (row.key.trim() === '' && row.value !== '') {
        this.setProblem({
          field: this.kind === 'stdio' ? 'env' : 'headers',
          message:
            this.kind === 'stdio'
              ? 'Every environment variable needs a name: type its name, or remove the row.'
              : 'Every header needs a name: type its name, or remove the row.',
        });
        return undefined;
      }
    }
    const parsed = ServerConfigSchema.safeParse(this.toInput());
    if (!parsed.success) {
      this.setProblem(describeZodError(parsed.error));
      return undefined;
    }
    const headers = parsed.data.type === 'stdio' ? undefined : unsendableHeaders(parsed.data.headers, this.#storedHeaders);
    if (headers) {
      this.setProblem(describeZodError(headers));
      return undefined;
    }
    this.setProblem(undefined);
    return parsed.data;
  }

  /**
   * Validates everything needed to save; returns the id to save under (new servers get a free one
   * made from the name) and the config.
   */
  validate(takenIds: Iterable<string>): { id: string; label?: string; config: ServerConfig } | undefined {
    const name = this.name.trim();
    if (!this.editingId && name === '') {
      this.setProblem({ field: 'name', message: 'Give the server a name, such as "files" or "github".' });
      return undefined;
    }
    const config = this.validateConfig();
    if (!config) return undefined;
    // Test may run without it (some servers list tools before a key is used); saving it would keep a stand-in.
    const [missing] = this.placeholders;
    if (missing) {
      const what = missing.field === 'env' ? `variable ${missing.key}` : `header ${missing.key}`;
      this.setProblem({
        field: `${missing.field}.${missing.key}`,
        message: `The snippet had a placeholder (${missing.was}) for the ${what}, not a real value: type the real value, or remove the row.`,
      });
      return undefined;
    }
    if (this.editingId) return { id: this.editingId, config };
    const id = idForName(name, takenIds);
    const label = id === name ? undefined : name;
    return { id, label, config: label && !config.label ? { ...config, label } : config };
  }

  /** Fills the form with one server found in a snippet, its stand-in values noted. */
  fill(server: SnippetServer): void {
    if (!this.editingId) this.name = server.name;
    this.load(server.config);
    this.#placeholders = server.placeholders ?? [];
    this.setProblem(undefined);
  }

  /** Fills the form from a pasted snippet; returns every server found so the caller can offer "add all". */
  paste(text: string): SnippetServer[] | undefined {
    try {
      const servers = parseSnippet(text);
      this.fill(servers[0]!);
      return servers;
    } catch (err) {
      this.setProblem({ field: 'snippet', message: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  }
}

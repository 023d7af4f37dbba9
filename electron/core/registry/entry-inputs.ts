/**
 * The values an entry asks for, read the way server.json defines them: an input with a `value` is fixed
 * (its `{name}` parts replaced with its `variables`), one without is asked of the user (with its
 * `default`, `choices`, `format`, `isRequired`, `isSecret`). One walk serves three uses: the form (which
 * fields there are), the preview on the detail page (defaults, `<label>` for what is still needed) and
 * the filled form (the values, checked).
 */
import type { RegistryFormField } from '../../../shared/api-registry.js';
import type { Argument, Input, InputWithVariables, KeyValueInput } from './server-json.js';
import { isSensitiveKey } from '../log/redact.js';

type Group = RegistryFormField['group'];

/** `preview`: no values yet (defaults, placeholders); `values`: the filled form, checked. */
export type InputMode = { kind: 'preview' } | { kind: 'values'; values: Readonly<Record<string, string>> };

export interface InputProblem {
  key: string;
  message: string;
}

const VARIABLE = /\{([A-Za-z0-9_.-]+)\}/g;

export class EntryInputs {
  readonly fields: RegistryFormField[] = [];
  readonly problems: InputProblem[] = [];
  /** Every secret value given, to keep them apart and mask them in summaries. */
  readonly secretValues = new Set<string>();
  readonly #seen = new Set<string>();

  constructor(private readonly mode: InputMode) {}

  /** Asks for one input; returns its values (several when repeated), or [] when left empty. */
  ask(key: string, label: string, input: Input, group: Group, repeated = false): string[] {
    if (!this.#seen.has(key)) {
      this.#seen.add(key);
      this.fields.push(formField(key, label, input, group, repeated));
    }
    if (this.mode.kind === 'preview') {
      if (input.default !== undefined) return [input.default];
      return input.isRequired ? [`<${label}>`] : [];
    }
    const given = Object.hasOwn(this.mode.values, key) ? this.mode.values[key] : undefined;
    const raw = given ?? input.default ?? '';
    const secret = isSecretInput(input, label);
    const values = (repeated ? raw.split(/\r?\n/) : [raw]).map((v) => formValue(v, secret)).filter((v) => v !== '');
    if (values.length === 0) {
      if (input.isRequired) this.problems.push({ key, message: `${label} is required` });
      return [];
    }
    for (const value of values) {
      const problem = checkValue(value, input);
      if (problem) this.problems.push({ key, message: `${label}: ${problem}` });
      if (secret) this.secretValues.add(value);
    }
    return values;
  }

  /**
   * A fixed value with its `{name}` variables filled in (a name it does not declare stays as written, as
   * the schema says). Undefined when it has variables and every one of them was left empty: the whole
   * argument, variable or header is then left out rather than sent half-made. A variable the entry does
   * not describe takes the description of what holds it (terraform's `-e TFE_TOKEN={token}` says what
   * the token is) and is labelled with its place: "TFE_TOKEN (token)".
   */
  template(value: string, variables: InputWithVariables['variables'], group: Group, holder: Holder = {}): string | undefined {
    let used = 0;
    let filled = 0;
    const text = value.replace(VARIABLE, (whole, name: string, at: number) => {
      const variable = variables && Object.hasOwn(variables, name) ? variables[name] : undefined;
      if (!variable) return whole;
      used++;
      const got = this.ask(`var:${name}`, ...described(name, variable, value.slice(0, at), holder), group)[0];
      if (got !== undefined) filled++;
      return got ?? '';
    });
    return used > 0 && filled === 0 ? undefined : text;
  }

  /** An environment variable or header: its value, or undefined when it is left out. */
  keyValue(kind: 'env' | 'header', item: KeyValueInput): string | undefined {
    const group: Group = kind === 'env' ? 'environment' : 'headers';
    if (item.value !== undefined) return this.template(item.value, item.variables, group, { place: item.name, description: item.description });
    return this.ask(`${kind}:${item.name}`, item.name, item, group)[0];
  }

  /** A list of runtime or package arguments as command-line words. */
  arguments(list: readonly Argument[] | undefined, where: 'runtime' | 'package'): string[] {
    const argv: string[] = [];
    (list ?? []).forEach((arg, i) => {
      const key = `arg:${where}:${i}`;
      if (arg.type === 'positional') {
        if (arg.value !== undefined) {
          const text = this.template(arg.value, arg.variables, 'arguments', { place: arg.valueHint, description: arg.description });
          if (text !== undefined) argv.push(text);
        } else {
          argv.push(...this.ask(key, arg.valueHint ?? `argument ${i + 1}`, hintAsDefault(arg), 'arguments', arg.isRepeated));
        }
        return;
      }
      if (arg.value !== undefined) {
        const text = this.template(arg.value, arg.variables, 'arguments', { place: arg.name, description: arg.description });
        if (text !== undefined) argv.push(arg.name, text);
      } else if (asksForValue(arg)) {
        for (const value of this.ask(key, arg.name, arg, 'arguments', arg.isRepeated)) argv.push(arg.name, value);
      } else {
        argv.push(arg.name); // a bare flag such as `--rm` or `-i`
      }
    });
    return argv;
  }
}

/** What holds a `{variable}`: its name or hint, and its description. */
interface Holder {
  place?: string;
  description?: string;
}

/**
 * A variable's label and input: as declared when it has a description, else with its holder's (if any)
 * and labelled with its place: the name before the `=` just ahead of it (`TFE_TOKEN` of
 * `TFE_TOKEN={token}`), else the holder's name (a header's, a flag's).
 */
function described(name: string, variable: Input, before: string, holder: Holder): [string, Input] {
  if (variable.description) return [name, variable];
  const place = /([A-Za-z_][A-Za-z0-9_.-]*)=$/.exec(before)?.[1] ?? holder.place;
  const label = place && place.toLowerCase() !== name.toLowerCase() ? `${place} (${name})` : name;
  return [label, holder.description ? { ...variable, description: holder.description } : variable];
}

/**
 * A positional argument that says nothing but its hint (Scrapling's `{"valueHint": "mcp"}`) is, in
 * practice, that word: a subcommand the server needs. The hint is filled in as its default and the
 * field says so; one that is required, described, or has a default or choices is asked as declared.
 */
function hintAsDefault(arg: Extract<Argument, { type: 'positional' }>): Input {
  if (arg.valueHint === undefined || arg.isRequired || arg.description || arg.default !== undefined || arg.choices?.length) return arg;
  const description = `The entry names this argument "${arg.valueHint}" and says nothing more, so it is filled in with that word. Leave it as it is unless the server's documentation says otherwise.`;
  return { ...arg, default: arg.valueHint, description };
}

/**
 * Whether a named argument without a `value` takes one from the user (`--connectionString <v>`) or is a
 * bare flag (`--rm`). The schema does not say; an argument that declares anything about a value
 * (isRequired, default, choices, format, secret, placeholder) takes one, a name with at most a
 * description is a flag (terraform's `-e` followed by a positional name is one).
 */
function asksForValue(arg: Extract<Argument, { type: 'named' }>): boolean {
  return (
    arg.isRequired !== undefined ||
    arg.default !== undefined ||
    arg.choices !== undefined ||
    arg.format !== undefined ||
    arg.isSecret !== undefined ||
    arg.placeholder !== undefined
  );
}

function formField(key: string, label: string, input: Input, group: Group, repeated: boolean): RegistryFormField {
  const format = input.format ?? 'string';
  const choices = input.choices && input.choices.length > 0 ? input.choices : undefined;
  return {
    key,
    label,
    ...(input.description ? { description: input.description } : {}),
    group,
    required: input.isRequired === true,
    secret: isSecretInput(input, label),
    input: choices ? 'select' : format === 'string' ? 'text' : format,
    ...(choices ? { choices } : {}),
    ...(input.default !== undefined ? { default: input.default } : {}),
    ...(input.placeholder ? { placeholder: input.placeholder } : {}),
    ...(repeated ? { repeated: true } : {}),
  };
}

/**
 * A filled field's value as saved; '' when it holds only blanks. Spaces and line breaks around a pasted
 * value are dropped (a key copied with its newline), but a secret keeps its spaces: a password may begin
 * or end with one, and its masked field would not show one dropped. A secret loses only line breaks at its
 * ends (a one-line field cannot hold them, a header cannot carry them).
 */
export function formValue(raw: string, secret: boolean): string {
  if (raw.trim() === '') return '';
  return secret ? raw.replace(/^[\r\n]+|[\r\n]+$/g, '') : raw.trim();
}

/**
 * Whether an input's value is a secret: the entry says so, or its name does (`--apiClientSecret`,
 * `GITHUB_TOKEN`), as lists and logs judge names: entries often leave isSecret out.
 */
const isSecretInput = (input: Input, label: string) => input.isSecret === true || isSensitiveKey(label);

/** Why a value does not fit its input, or undefined. Numbers are decimals, booleans `true`/`false` (the schema's rule). */
export function checkValue(value: string, input: Input): string | undefined {
  if (input.choices && input.choices.length > 0 && !input.choices.includes(value)) return `choose one of ${input.choices.join(', ')}`;
  if (input.format === 'number' && !/^-?\d+(\.\d+)?$/.test(value.trim())) return 'must be a number';
  if (input.format === 'boolean' && value !== 'true' && value !== 'false') return 'must be true or false';
  if (input.format === 'filepath' && value.includes('\0')) return 'is not a usable file path';
  return undefined;
}

/**
 * An MCPB bundle's own settings (its manifest's `user_config`) as fields of the add form, and the filled
 * form back as the `userConfig` the official library fills `${user_config.*}` with. Field keys are
 * `setting:<key>`, beside the registry entry's own fields; sensitive values are masked in the form and
 * collected so the caller keeps them out of config.json.
 */
import type { McpbManifestAny } from '@anthropic-ai/mcpb';
import type { RegistryFormField } from '../../../../shared/api-registry.js';
import { formValue, type InputProblem } from '../entry-inputs.js';
import type { BundleUserConfig } from './mcpb-launch.js';

type UserConfigOption = NonNullable<McpbManifestAny['user_config']>[string];

const PREFIX = 'setting:';
const INPUT = { string: 'text', number: 'number', boolean: 'boolean', directory: 'filepath', file: 'filepath' } as const;

/** The form fields for a bundle's settings, in the manifest's order. */
export function bundleFields(manifest: McpbManifestAny): RegistryFormField[] {
  return Object.entries(manifest.user_config ?? {}).map(([key, option]) => ({
    key: PREFIX + key,
    label: option.title || key,
    ...(option.description ? { description: option.description } : {}),
    group: 'settings' as const,
    required: option.required === true,
    secret: option.sensitive === true,
    input: INPUT[option.type],
    ...(option.default !== undefined ? { default: defaultText(option.default) } : {}),
    ...(option.type === 'directory' ? { placeholder: 'A folder path' } : option.type === 'file' ? { placeholder: 'A file path' } : {}),
    ...(option.multiple ? { repeated: true } : {}),
    ...(option.min !== undefined ? { min: option.min } : {}),
    ...(option.max !== undefined ? { max: option.max } : {}),
  }));
}

export interface BundleValues {
  userConfig: BundleUserConfig;
  problems: InputProblem[];
  /** The sensitive values given (kept as secrets, masked in summaries). */
  secretValues: Set<string>;
}

/**
 * The filled form's settings, checked: required ones given, numbers numbers within min/max, booleans
 * true/false. A setting left empty is left out, so the manifest's default applies.
 */
export function bundleValues(manifest: McpbManifestAny, values: Readonly<Record<string, string>>): BundleValues {
  const out: BundleValues = { userConfig: {}, problems: [], secretValues: new Set() };
  for (const [key, option] of Object.entries(manifest.user_config ?? {})) {
    const formKey = PREFIX + key;
    const raw = Object.hasOwn(values, formKey) ? values[formKey] : '';
    const list = (option.multiple ? raw.split(/\r?\n/) : [raw]).map((v) => formValue(v, option.sensitive === true)).filter((v) => v !== '');
    const label = option.title || key;
    if (list.length === 0) {
      if (option.required && option.default === undefined) out.problems.push({ key: formKey, message: `${label} is required` });
      continue;
    }
    const problem = list.map((v) => checkSetting(v, option)).find((p) => p !== undefined);
    if (problem) {
      out.problems.push({ key: formKey, message: `${label}: ${problem}` });
      continue;
    }
    if (option.sensitive) for (const v of list) out.secretValues.add(v);
    out.userConfig[key] =
      option.type === 'number' ? Number(list[0]) : option.type === 'boolean' ? list[0] === 'true' : option.multiple ? list : list[0];
  }
  return out;
}

function checkSetting(value: string, option: UserConfigOption): string | undefined {
  if (option.type === 'boolean') return value === 'true' || value === 'false' ? undefined : 'must be true or false';
  if (option.type === 'number') {
    if (!/^-?\d+(\.\d+)?$/.test(value)) return 'must be a number';
    const n = Number(value);
    if (option.min !== undefined && n < option.min) return `must be at least ${option.min}`;
    if (option.max !== undefined && n > option.max) return `must be at most ${option.max}`;
  }
  if ((option.type === 'directory' || option.type === 'file') && value.includes('\0')) return 'is not a usable path';
  return undefined;
}

const defaultText = (value: string | number | boolean | string[]) => (Array.isArray(value) ? value.join('\n') : String(value));

/**
 * Forms of entries that say little about their inputs (audit s15), read from the shared registry
 * fixture in place: Scrapling's positional argument that is only a hint ("mcp", the subcommand it
 * needs) is filled in and kept when the form is added as it comes; terraform 1.2.0's `{variables}` have
 * no description of their own and take the one of the `-e` argument that holds them, labelled with
 * their place.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryOptions, planOption, type EntryOption } from '../../electron/core/registry/launch-plan.js';
import { ServerDetailSchema } from '../../electron/core/registry/server-json.js';

const FIXTURE = fileURLToPath(new URL('../../../shared/registry-fixture/data/servers/', import.meta.url));
const firstPackage = (file: string): EntryOption => {
  const entry = ServerDetailSchema.parse(JSON.parse(readFileSync(join(FIXTURE, `${file}.json`), 'utf8')));
  const found = entryOptions(entry).find((o) => o.kind === 'package' && o.index === 0);
  if (!found) throw new Error(`${file} has no package`);
  return found;
};
/** The form's values as the window fills them in before the user types anything. */
const asItComes = (o: EntryOption) => Object.fromEntries(planOption(o, { kind: 'preview' }).inputs.fields.map((f) => [f.key, f.default ?? '']));

describe('an argument that is only a hint', () => {
  const scrapling = firstPackage('io.github.D4Vinci__Scrapling@0.4.14');

  it('is filled in with its hint and says why', () => {
    const [field] = planOption(scrapling, { kind: 'preview' }).inputs.fields;
    expect(field).toMatchObject({ key: 'arg:package:0', label: 'mcp', default: 'mcp' });
    expect(field.description).toMatch(/filled in with that word/);
    expect(planOption(scrapling, { kind: 'preview' }).summary).toContain('scrapling==0.4.14 mcp');
  });

  it('the form added as it comes runs the "mcp" command', () => {
    const plan = planOption(scrapling, { kind: 'values', values: asItComes(scrapling) });
    expect(plan.inputs.problems).toEqual([]);
    expect(plan.launch).toMatchObject({ command: 'uvx', args: ['scrapling==0.4.14', 'mcp'] });
  });
});

describe('variables without a description', () => {
  it('terraform 1.2.0: each takes the description of its -e argument and is labelled with its place', () => {
    const fields = planOption(firstPackage('io.github.hashicorp__terraform-mcp-server@1.2.0'), { kind: 'preview' }).inputs.fields;
    expect(fields.map((f) => [f.key, f.label, f.description])).toEqual([
      ['var:address', 'TFE_ADDRESS (address)', 'HCP Terraform or Terraform Enterprise base URL.'],
      ['var:token', 'TFE_TOKEN (token)', 'HCP Terraform or Terraform Enterprise API token used to authenticate requests.'],
      ['var:enabled', 'ENABLE_TF_OPERATIONS (enabled)', 'Set to true to enable tools that execute Terraform operations requiring explicit approval.'],
    ]);
    expect(fields.find((f) => f.key === 'var:token')?.secret).toBe(true);
  });

  it('terraform 0.3.2: variables that describe themselves keep their own name and words', () => {
    const fields = planOption(firstPackage('io.github.hashicorp__terraform-mcp-server@0.3.2'), { kind: 'preview' }).inputs.fields;
    expect(fields.find((f) => f.key === 'var:tfe_token')).toMatchObject({
      label: 'tfe_token',
      description: 'HCP Terraform or Terraform Enterprise API token used to authenticate requests.',
    });
  });
});

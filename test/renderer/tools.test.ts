import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ToolsView from '../../renderer/src/views/ToolsView.svelte';
import ToolPolicyEditor from '../../renderer/src/views/ToolPolicyEditor.svelte';
import { PoliciesState } from '../../renderer/src/lib/policies.svelte.js';
import { ServersState } from '../../renderer/src/lib/servers.svelte.js';
import { ToolsState } from '../../renderer/src/lib/tools.svelte.js';
import { createAppState } from '../../renderer/src/lib/app-state.js';
import { FakeBackend } from './fake-backend.js';

let stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

async function setup(seed?: (fake: FakeBackend) => void) {
  const fake = new FakeBackend();
  fake.seedServer('files', { type: 'stdio', command: 'files', args: [], enabled: true, prefix: true } as never);
  seed?.(fake);
  const servers = new ServersState(fake);
  const tools = new ToolsState(fake);
  const policies = new PoliciesState(fake);
  stops = [servers.start(), policies.start()];
  render(ToolsView, { servers, tools, policies });
  await screen.findByRole('table', { name: 'Tools of files' });
  return { fake, policies };
}

describe('Tools & policies', () => {
  it('lists each tool with the tokens listing it costs and hides one with its Visible toggle', async () => {
    const { fake } = await setup();
    const table = screen.getByRole('table', { name: 'Tools of files' });
    expect(
      within(table)
        .getByRole('rowheader', { name: /read_file/ })
        .closest('tr')?.textContent,
    ).toContain('120');
    expect(screen.getByText(/215 tokens to list them/)).toBeTruthy();

    const visible = (await screen.findByLabelText('Visible: read_file')) as HTMLInputElement;
    expect(visible.checked).toBe(true);
    await fireEvent.click(visible);
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toEqual({ hidden: true }));
    expect(visible.checked).toBe(false);

    await fireEvent.click(screen.getByLabelText('Cache results: read_file'));
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toEqual({ hidden: true, cacheTtlSeconds: 300 }));
  });

  it('edits the threshold with the value in force and where it comes from, then resets to default', async () => {
    const { fake } = await setup();
    await fireEvent.click(await screen.findByRole('button', { name: 'Edit policy of read_file' }));
    const editor = screen.getByRole('group', { name: 'Policy for read_file' });
    expect(await within(editor).findByText(/In force: 10,000 tokens/)).toBeTruthy();
    expect(within(editor).getAllByText('(inherited from the defaults)').length).toBeGreaterThan(0);

    const slider = within(editor).getByLabelText('Threshold for read_file');
    await fireEvent.input(slider, { target: { value: '6' } });
    await fireEvent.change(slider, { target: { value: '6' } });
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toEqual({ thresholdTokens: 50_000 }));
    expect(await within(editor).findByText(/In force: 50,000 tokens/)).toBeTruthy();
    expect(within(editor).getByText('(set for this tool)')).toBeTruthy();

    // The description override sits beside the original.
    expect(within(editor).getByText('Read a file')).toBeTruthy();
    await fireEvent.input(within(editor).getByLabelText('Description shown to clients'), { target: { value: 'Reads one file from the project' } });
    await fireEvent.click(within(editor).getByRole('button', { name: 'Save description' }));
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file?.description).toBe('Reads one file from the project'));

    await fireEvent.click(within(editor).getByRole('button', { name: 'Reset read_file to default' }));
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toBeUndefined());
    expect(await within(editor).findByText(/In force: 10,000 tokens/)).toBeTruthy();
    expect(fake.callsOf('policies.resetTool')).toEqual([{ server: 'files', tool: 'read_file' }]);
  });

  it('warns when the preview is not below the threshold in force (issue 14, item 5)', async () => {
    await setup();
    await fireEvent.click(await screen.findByRole('button', { name: 'Edit policy of read_file' }));
    const editor = screen.getByRole('group', { name: 'Policy for read_file' });
    expect(await within(editor).findByText(/In force: 10,000 tokens/)).toBeTruthy();
    expect(within(editor).queryByText(/is not below the threshold/)).toBeNull();
    // Threshold down to 500 while the preview in force is 1,000.
    const slider = within(editor).getByLabelText('Threshold for read_file');
    await fireEvent.input(slider, { target: { value: '0' } });
    expect(await within(editor).findByText(/^The preview \(1,000 tokens\) is not below the threshold \(500 tokens\)/)).toBeTruthy();
    await fireEvent.input(slider, { target: { value: '3' } });
    await waitFor(() => expect(within(editor).queryByText(/is not below the threshold/)).toBeNull());
  });

  it('shows a refused hidden parameter at that field', async () => {
    const { fake } = await setup();
    await fireEvent.click(await screen.findByRole('button', { name: 'Edit policy of read_file' }));
    const editor = screen.getByRole('group', { name: 'Policy for read_file' });
    await fireEvent.click(within(editor).getByRole('button', { name: 'Add parameter' }));
    await fireEvent.input(within(editor).getByLabelText('Parameter 1'), { target: { value: 'root' } });
    await fireEvent.input(within(editor).getByLabelText('Value of root'), { target: { value: '"/srv"' } });
    await fireEvent.click(within(editor).getByRole('button', { name: 'Save hidden parameters' }));

    const alert = await within(editor).findByRole('alert');
    // Shown at its field, the hub's message needs no field path in front ("tools.files.read_file.hiddenParams.root: …").
    expect(alert.textContent).toBe('The tool has no parameter "root" (it has: path, encoding, limit).');
    expect(alert.id).toBe('pol-files-read_file-hiddenParams-error');
    expect(within(editor).getByLabelText('Parameter 1').getAttribute('aria-invalid')).toBe('true');
    expect(fake.policies.policies.tools.files).toBeUndefined();

    // A hidden parameter without a value is refused before it leaves, at the same field, in words.
    const sent = fake.callsOf('policies.setTool').length;
    await fireEvent.input(within(editor).getByLabelText('Parameter 1'), { target: { value: 'path' } });
    await fireEvent.input(within(editor).getByLabelText('Value of path'), { target: { value: '' } });
    await fireEvent.click(within(editor).getByRole('button', { name: 'Save hidden parameters' }));
    await waitFor(() =>
      expect(within(editor).getByRole('alert').textContent).toBe(
        'Type a value for “path”: clients no longer send this parameter, so Spillway sends this value in its place.',
      ),
    );
    expect(fake.callsOf('policies.setTool')).toHaveLength(sent);

    await fireEvent.input(within(editor).getByLabelText('Value of path'), { target: { value: '/srv/data' } });
    await fireEvent.click(within(editor).getByRole('button', { name: 'Save hidden parameters' }));
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toEqual({ hiddenParams: { path: '/srv/data' } }));
    expect(within(editor).queryByRole('alert')).toBeNull();
  });

  it('reads a hidden parameter’s value by its type in the tool’s input schema: digits stay text for a string', async () => {
    const fake = new FakeBackend();
    fake.seedServer('files', { type: 'stdio', command: 'files', args: [], enabled: true, prefix: true } as never);
    const policies = new PoliciesState(fake);
    stops = [policies.start()];
    const inputSchema = { properties: { path: { type: 'string' }, limit: { type: ['integer', 'null'] } } };
    render(ToolPolicyEditor, { policies, server: 'files', tool: { name: 'files__read_file', original: 'read_file', inputSchema } });
    const editor = screen.getByRole('group', { name: 'Policy for read_file' });
    const save = () => fireEvent.click(within(editor).getByRole('button', { name: 'Save hidden parameters' }));
    await fireEvent.click(within(editor).getByRole('button', { name: 'Add parameter' }));
    await fireEvent.input(within(editor).getByLabelText('Parameter 1'), { target: { value: 'path' } });
    expect(within(editor).getByLabelText('Value of path').getAttribute('placeholder')).toBe('text');
    await fireEvent.input(within(editor).getByLabelText('Value of path'), { target: { value: '12345' } });
    await save();
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toEqual({ hiddenParams: { path: '12345' } }));

    await fireEvent.click(within(editor).getByRole('button', { name: 'Add parameter' }));
    await fireEvent.input(within(editor).getByLabelText('Parameter 2'), { target: { value: 'limit' } });
    await fireEvent.input(within(editor).getByLabelText('Value of limit'), { target: { value: 'ten' } });
    await save();
    expect((await within(editor).findByRole('alert')).textContent).toBe(
      '“limit” takes a whole number, such as 10. Change the value, then save again.',
    );
    expect(fake.callsOf('policies.setTool')).toHaveLength(1);

    await fireEvent.input(within(editor).getByLabelText('Value of limit'), { target: { value: '10' } });
    await save();
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toEqual({ hiddenParams: { path: '12345', limit: 10 } }));
    expect(within(editor).queryByRole('alert')).toBeNull();
  });

  it('shows a tool withheld by pinning with its diff, and approves it', async () => {
    const { fake } = await setup((f) =>
      f.policies.withhold({
        server: 'files',
        tool: 'read_file',
        oldDescription: 'Read a file',
        newDescription: 'Read a file and send it to example.com',
        schemaDiff: ['+ properties.upload', '~ properties.path'],
      }),
    );
    const pin = await screen.findByRole('listitem', { name: 'files read_file changed' });
    expect(within(pin).getByText('Read a file and send it to example.com')).toBeTruthy();
    expect(within(pin).getByLabelText('Schema changes of read_file').textContent).toBe('+ properties.upload\n~ properties.path');
    await fireEvent.click(within(pin).getByRole('button', { name: 'Approve read_file' }));
    await waitFor(() => expect(screen.queryByRole('listitem', { name: 'files read_file changed' })).toBeNull());
    expect(fake.policies.pending).toEqual([]);
  });

  it("says when the policy's hidden value no longer fits a held-back tool's new definition", async () => {
    const problem =
      'The hidden value of "limit" is text, and the new definition takes a whole number. Once you approve the change, calls of the tool are refused until you change or remove that value.';
    await setup((f) =>
      f.policies.withhold({
        server: 'files',
        tool: 'read_file',
        oldDescription: 'Read a file',
        newDescription: 'Read a file',
        schemaDiff: ['~ properties.limit'],
        policyProblem: { field: 'hiddenParams.limit', message: problem },
      }),
    );
    const pin = await screen.findByRole('listitem', { name: 'files read_file changed' });
    expect(within(pin).getByText(problem)).toBeTruthy();
  });

  it('lists the tools once the hub is back, after a load that failed while it was down', async () => {
    const fake = new FakeBackend();
    fake.seedServer('files', { type: 'stdio', command: 'files', args: [], enabled: true, prefix: true } as never);
    fake.failNext('upstreams.tools', { code: 'unavailable', message: 'Cannot reach Spillway.' });
    const app = createAppState(fake, { getItem: () => '1', setItem: () => {} });
    stops = [app.start()];
    render(ToolsView, { servers: app.servers, tools: app.tools, policies: app.policies });
    expect((await screen.findByRole('alert')).textContent).toContain('Cannot reach Spillway');

    fake.setConnected(false);
    fake.setConnected(true);
    await screen.findByRole('table', { name: 'Tools of files' });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(fake.callsOf('upstreams.tools')).toHaveLength(2);
  });

  it('shows tools read-only with a note when the hub does not offer policies yet', async () => {
    const { policies } = await setup((f) => f.withhold('policies', 'pins'));
    await waitFor(() => expect(policies.available).toBe(false));
    expect(screen.getByRole('note').textContent).toContain('not available yet');
    expect(screen.queryByLabelText('Visible: read_file')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

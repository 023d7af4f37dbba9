/**
 * Quick edits of one tool's policy: `policies.setTool` replaces the whole policy, so an edit made while
 * the one before is still saving must be built on it, or the hub keeps only the last one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ToolPolicyEditor from '../../renderer/src/views/ToolPolicyEditor.svelte';
import ToolsView from '../../renderer/src/views/ToolsView.svelte';
import { PoliciesState } from '../../renderer/src/lib/policies.svelte.js';
import { ServersState } from '../../renderer/src/lib/servers.svelte.js';
import { ToolsState } from '../../renderer/src/lib/tools.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

function hubWithFiles(): FakeBackend {
  const fake = new FakeBackend();
  fake.seedServer('files', { type: 'stdio', command: 'files', args: [], enabled: true, prefix: true } as never);
  return fake;
}

async function openEditor() {
  const fake = hubWithFiles();
  const policies = new PoliciesState(fake);
  stops = [policies.start()];
  render(ToolPolicyEditor, { policies, server: 'files', tool: { name: 'files__read_file', original: 'read_file' } });
  const editor = within(screen.getByRole('group', { name: 'Policy for read_file' }));
  await editor.findByText(/In force: spill/);
  const action = editor.getByLabelText('When a result is over the threshold') as HTMLSelectElement;
  const encoding = editor.getByLabelText('Tables as TOON: fewer tokens for lists of records') as HTMLSelectElement;
  return { fake, editor, action, encoding };
}

describe('Quick edits of a tool policy', () => {
  it('keeps both of two edits made while the first is saving', async () => {
    const { fake, editor, action, encoding } = await openEditor();
    fake.hold('policies.setTool');
    await fireEvent.change(action, { target: { value: 'truncate' } });
    await fireEvent.change(encoding, { target: { value: 'json' } });
    expect(editor.getByRole('status').textContent).toBe('Saving…');

    fake.release();
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toEqual({ action: 'truncate', encoding: 'json' }));
    await waitFor(() => expect(editor.queryByRole('status')).toBeNull());
    expect(action.value).toBe('truncate');
    expect(encoding.value).toBe('json');
    expect(editor.getByText(/In force: truncate to the preview/)).toBeTruthy();
    expect(editor.getByText(/In force: never: keep JSON/)).toBeTruthy();
  });

  it('shows a refused edit’s message at its field and what the hub holds, while the next edit still lands', async () => {
    const { fake, editor, action, encoding } = await openEditor();
    fake.hold('policies.setTool');
    fake.failNext('policies.setTool', {
      code: 'invalid',
      field: 'tools.files.read_file.action',
      message: 'tools.files.read_file.action: this hub cannot truncate results yet',
    });
    await fireEvent.change(action, { target: { value: 'truncate' } });
    await fireEvent.change(encoding, { target: { value: 'json' } });

    fake.release();
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toEqual({ encoding: 'json' }));
    await waitFor(() => expect(editor.queryByRole('status')).toBeNull());
    const alert = editor.getByRole('alert');
    expect(alert.textContent).toBe('This hub cannot truncate results yet.');
    expect(alert.id).toBe('pol-files-read_file-action-error');
    // The hub holds no action for the tool: the control says so again, not the refused choice.
    expect(action.value).toBe('');
    expect(encoding.value).toBe('json');
  });

  it('keeps both the Visible and the Cache toggle clicked one right after the other', async () => {
    const fake = hubWithFiles();
    const servers = new ServersState(fake);
    const policies = new PoliciesState(fake);
    stops = [servers.start(), policies.start()];
    render(ToolsView, { servers, tools: new ToolsState(fake), policies });
    const visible = (await screen.findByLabelText('Visible: read_file')) as HTMLInputElement;
    const cache = screen.getByLabelText('Cache results: read_file') as HTMLInputElement;

    fake.hold('policies.setTool');
    await fireEvent.click(visible);
    await fireEvent.click(cache);
    fake.release();
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toEqual({ hidden: true, cacheTtlSeconds: 300 }));
    await waitFor(() => expect(policies.isSaving('files', 'read_file')).toBe(false));
    expect(visible.checked).toBe(false);
    expect(cache.checked).toBe(true);
  });
});

describe('What the hub says of a saved policy', () => {
  it('shows a warning the hub gives for a field that does nothing as set (not only the preview advice)', async () => {
    const fake = hubWithFiles();
    const warning = 'pii: no type of personal data and no custom pattern is chosen, so nothing is masked: choose a type, or remove PII masking.';
    const effective = fake.policies.effective.bind(fake.policies);
    fake.policies.effective = (server, tool) => ({ ...effective(server, tool), warnings: [warning] });
    const policies = new PoliciesState(fake);
    stops = [policies.start()];
    render(ToolPolicyEditor, { policies, server: 'files', tool: { name: 'files__read_file', original: 'read_file' } });
    const editor = within(screen.getByRole('group', { name: 'Policy for read_file' }));
    expect(await editor.findByText(warning)).toBeTruthy();
  });
});

/**
 * "Reset <tool> to default" clears a hand-written description and hidden parameter values in one click:
 * a notice offers Undo (as removing a server does), and takes the focus the disabled button drops.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ToolPolicyEditor from '../../renderer/src/views/ToolPolicyEditor.svelte';
import { PoliciesState } from '../../renderer/src/lib/policies.svelte.js';
import type { ToolPolicy } from '../../shared/policy.js';
import { FakeBackend } from './fake-backend.js';

let stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

const WRITTEN: ToolPolicy = {
  description: 'Reads one file of the project; give paths relative to its root.',
  hiddenParams: { encoding: 'utf8' },
  thresholdTokens: 50_000,
};

async function openEditor() {
  const fake = new FakeBackend();
  fake.seedServer('files', { type: 'stdio', command: 'files', args: [], env: {}, enabled: true, prefix: true });
  fake.policies.policies.tools = { files: { read_file: structuredClone(WRITTEN) } };
  const policies = new PoliciesState(fake);
  stops = [policies.start()];
  // The editor opens on a loaded list, as in Tools & policies: its drafts start from what is saved.
  await policies.refresh();
  render(ToolPolicyEditor, { policies, server: 'files', tool: { name: 'files__read_file', original: 'read_file' } });
  const editor = within(screen.getByRole('group', { name: 'Policy for read_file' }));
  await editor.findByText(/In force: 50,000 tokens/);
  const reset = editor.getByRole('button', { name: 'Reset read_file to default' }) as HTMLButtonElement;
  await waitFor(() => expect(reset.disabled).toBe(false));
  return { fake, editor, reset };
}

describe('Reset a tool policy to default', () => {
  it('offers Undo, which puts back the description and the hidden parameter values', async () => {
    const { fake, editor, reset } = await openEditor();
    expect((editor.getByLabelText('Description shown to clients') as HTMLTextAreaElement).value).toBe(WRITTEN.description);
    reset.focus();
    await fireEvent.click(reset);

    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toBeUndefined());
    const note = editor.getByText(/what was set for it here is removed/).closest('[role="status"]') as HTMLElement;
    expect(note.textContent).toContain('Reset read_file to default');
    // The button went disabled under the focus: the notice has it, not the page.
    expect(document.activeElement).toBe(note);
    expect((editor.getByLabelText('Description shown to clients') as HTMLTextAreaElement).value).toBe('');
    expect(editor.queryByLabelText('Value of encoding')).toBeNull();

    await fireEvent.click(within(note).getByRole('button', { name: 'Undo' }));
    await waitFor(() => expect(fake.policies.policies.tools.files?.read_file).toEqual(WRITTEN));
    await waitFor(() => expect(editor.queryByText(/what was set for it here is removed/)).toBeNull());
    expect((editor.getByLabelText('Description shown to clients') as HTMLTextAreaElement).value).toBe(WRITTEN.description);
    expect((editor.getByLabelText('Value of encoding') as HTMLInputElement).value).toBe('utf8');
    expect(await editor.findByText(/In force: 50,000 tokens/)).toBeTruthy();
    // Undo went with its notice: the focus moves to Reset, enabled again.
    await waitFor(() => expect(document.activeElement).toBe(reset));
    expect(reset.disabled).toBe(false);
  });

  it('a refused reset offers no Undo, shows why, and gives the focus back to the button', async () => {
    const { fake, editor, reset } = await openEditor();
    fake.failNext('policies.resetTool', { code: 'internal', message: 'The config file could not be written.' });
    reset.focus();
    await fireEvent.click(reset);
    expect((await editor.findByRole('alert')).textContent).toBe('The config file could not be written.');
    await waitFor(() => expect(editor.queryByText(/what was set for it here is removed/)).toBeNull());
    expect(fake.policies.policies.tools.files?.read_file).toEqual(WRITTEN);
    await waitFor(() => expect(document.activeElement).toBe(reset));
  });
});

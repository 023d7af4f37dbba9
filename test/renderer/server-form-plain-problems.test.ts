/**
 * The add form's problems read as plain sentences at their field (audit s16, servers by hand, items 2 and
 * 3): an empty Command said "The command command is required.", an address that is not one "The URL must
 * be a URL.", and a header a request cannot carry was saved (the server then failed on every retry).
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/svelte';
import { ServerDraft } from '../../renderer/src/lib/server-draft.svelte.js';
import { renderServers as setup } from './render-views.js';

const form = () => within(screen.getByRole('form', { name: 'Add a server' }));

describe('Server form: plain problems', () => {
  it('says plainly that Command is empty', () => {
    const draft = new ServerDraft();
    draft.name = 'x';
    draft.validate([]);
    expect(draft.problem).toEqual({ field: 'command', message: 'The command cannot be empty.' });
  });

  it('says what a web address looks like when the URL is not one', () => {
    const draft = new ServerDraft();
    draft.name = 'x';
    draft.kind = 'http';
    draft.url = 'example';
    draft.validate([]);
    expect(draft.problem).toEqual({ field: 'url', message: 'The URL must be a full web address, such as https://example.com/mcp.' });
  });

  it('refuses a header name with a space under Headers, naming the header, and sends nothing', async () => {
    const { fake } = await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await fireEvent.input(form().getByLabelText('Name'), { target: { value: 'remote' } });
    await fireEvent.click(form().getByLabelText('Web address (URL)'));
    await fireEvent.input(form().getByLabelText('URL'), { target: { value: 'https://example.com/mcp' } });
    await fireEvent.click(form().getByRole('button', { name: 'Add header' }));
    await fireEvent.input(form().getByLabelText('Header 1'), { target: { value: 'X Api Key' } });
    await fireEvent.input(form().getByLabelText('Value of X Api Key'), { target: { value: 'k' } });
    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));

    const note = form().getByRole('alert');
    expect(note.id).toBe('server-headers-error');
    expect(note.textContent).toBe(
      'The header "X Api Key" cannot have a space in its name: use only the letters A-Z, digits and "-", such as X-Api-Key.',
    );
    expect(fake.callsOf('upstreams.add')).toEqual([]);
  });
});

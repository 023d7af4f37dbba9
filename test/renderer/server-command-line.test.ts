/**
 * A whole command line typed in Command (`node /srv/index.js`, as READMEs print it) with Arguments
 * empty: the form keeps the program in Command and moves the other words to Arguments, says so, and
 * can put the line back for a program path with spaces. Saved whole, the hub looked the line up as one
 * program's name and the card said that "program" could not be found (audit s14, window, item 1).
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { ServerDraft } from '../../renderer/src/lib/server-draft.svelte.js';
import { renderServers as setup } from './render-views.js';

const form = () => within(screen.getByRole('form'));
const command = () => form().getByLabelText('Command') as HTMLInputElement;
const args = () => form().getByLabelText('Arguments, one per line') as HTMLTextAreaElement;

/** Types a value the way a user does: input events, then change when the field is left. */
async function type(field: HTMLInputElement | HTMLTextAreaElement, value: string) {
  await fireEvent.input(field, { target: { value } });
  await fireEvent.change(field);
}

describe('Servers: a command line typed in Command', () => {
  it('moves the words after the program to Arguments when Command is left, says so, and adds the server that way', async () => {
    const { fake } = await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await type(form().getByLabelText('Name'), 'memory');
    await type(command(), 'node /srv/memory/dist/index.js --store "/home/me/My notes"');
    expect(command().value).toBe('node');
    expect(args().value).toBe('/srv/memory/dist/index.js\n--store\n/home/me/My notes');
    expect(form().getByRole('status').textContent).toContain('moved the words after “node” to Arguments');

    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect(fake.servers.get('memory')?.config).toMatchObject({
      command: 'node',
      args: ['/srv/memory/dist/index.js', '--store', '/home/me/My notes'],
    });
  });

  it('splits it on Add server too, when Command was never left (Enter in the field)', async () => {
    const { fake } = await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await fireEvent.input(form().getByLabelText('Name'), { target: { value: 'memory' } });
    await fireEvent.input(command(), { target: { value: 'npx -y @modelcontextprotocol/server-memory' } });
    await fireEvent.submit(screen.getByRole('form'));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect(fake.servers.get('memory')?.config).toMatchObject({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] });
  });

  it('puts the line back in Command when asked (a program path with spaces), and keeps it whole from then on', async () => {
    const { fake } = await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await type(form().getByLabelText('Name'), 'tool');
    await type(command(), 'C:\\Program Files\\Tool\\tool-mcp.exe');
    expect(command().value).toBe('C:\\Program');
    await fireEvent.click(form().getByRole('button', { name: 'keep it in Command' }));
    expect(command().value).toBe('C:\\Program Files\\Tool\\tool-mcp.exe');
    expect(args().value).toBe('');
    expect(form().queryByRole('status')).toBeNull();

    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect(fake.servers.get('tool')?.config).toMatchObject({ command: 'C:\\Program Files\\Tool\\tool-mcp.exe', args: [] });
  });

  it('moves leading NAME=value words to Environment variables (as a shell sets them) and puts them back with the line', async () => {
    const { fake } = await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await type(form().getByLabelText('Name'), 'brave');
    await type(command(), 'BRAVE_API_KEY=abc123 REGION=eu npx -y @brave/brave-search-mcp-server');
    expect(command().value).toBe('npx');
    expect(args().value).toBe('-y\n@brave/brave-search-mcp-server');
    expect(form().getByRole('status').textContent).toContain('and BRAVE_API_KEY, REGION to Environment variables');

    await fireEvent.click(form().getByRole('button', { name: 'keep it in Command' }));
    expect(command().value).toBe('BRAVE_API_KEY=abc123 REGION=eu npx -y @brave/brave-search-mcp-server');
    expect(fake.servers.size).toBe(0);
    const draft = new ServerDraft();
    draft.command = 'TOKEN=t1 my-server';
    expect(draft.splitCommand()).toBe(true);
    expect(draft.command).toBe('my-server');
    expect(draft.splitVariables).toEqual(['TOKEN']);
    expect(draft.env).toEqual([{ key: 'TOKEN', value: 't1', masked: true }]);
    draft.keepCommandWhole();
    expect(draft.env).toEqual([]);

    await fireEvent.input(command(), { target: { value: 'BRAVE_API_KEY=abc123 npx -y @brave/brave-search-mcp-server' } });
    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect(fake.servers.get('brave')?.config).toMatchObject({
      command: 'npx',
      args: ['-y', '@brave/brave-search-mcp-server'],
      env: { BRAVE_API_KEY: 'abc123' },
    });
  });

  it('leaves Command alone when Arguments has words, the line is one quoted path, or a quote is not closed', () => {
    const cases: Array<[string, string, string]> = [
      ['node server.js', '--port\n3000', 'node server.js'],
      ['"C:\\Program Files\\Tool\\tool-mcp.exe"', '', '"C:\\Program Files\\Tool\\tool-mcp.exe"'],
      ['node "/srv/my server.js', '', 'node "/srv/my server.js'],
      ['npx', '', 'npx'],
    ];
    for (const [typed, argsText, kept] of cases) {
      const draft = new ServerDraft();
      draft.command = typed;
      draft.argsText = argsText;
      expect(draft.splitCommand()).toBe(false);
      expect(draft.command).toBe(kept);
    }
  });

  it('keeps an existing server’s command with spaces as it was saved when editing', async () => {
    const { fake } = await setup((f) =>
      f.seedServer('tool', { type: 'stdio', command: '/opt/My Tools/tool-mcp', args: [], env: {}, enabled: true, prefix: true }),
    );
    await fireEvent.click(within(screen.getByRole('article', { name: 'tool' })).getByRole('button', { name: 'Edit' }));
    await fireEvent.change(command());
    expect(command().value).toBe('/opt/My Tools/tool-mcp');
    await fireEvent.click(form().getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect(fake.servers.get('tool')?.config).toMatchObject({ command: '/opt/My Tools/tool-mcp', args: [] });
  });
});

import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ServersView from '../../renderer/src/views/ServersView.svelte';
import { UNREACHABLE_MESSAGE } from '../../renderer/src/lib/api.js';
import { parseSnippet } from '../../renderer/src/lib/server-draft.svelte.js';
import { FakeBackend } from './fake-backend.js';
import { createAppState } from '../../renderer/src/lib/app-state.js';
import { renderServers as setup, stopAfterTest } from './render-views.js';

const form = () => within(screen.getByRole('form', { name: 'Add a server' }));

describe('Servers: add form', () => {
  it('refuses an incomplete server, names the field, and sends nothing', async () => {
    const { fake } = await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));

    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    expect(form().getByRole('alert').textContent).toContain('Give the server a name');
    expect(form().getByLabelText('Name').getAttribute('aria-invalid')).toBe('true');

    await fireEvent.input(form().getByLabelText('Name'), { target: { value: 'files' } });
    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    expect(form().getByRole('alert').textContent).toContain('The command cannot be empty.');
    expect(form().getByLabelText('Command').getAttribute('aria-invalid')).toBe('true');
    expect(form().getByLabelText('Name').getAttribute('aria-invalid')).toBe('false');

    await fireEvent.click(form().getByLabelText('Web address (URL)'));
    await fireEvent.input(form().getByLabelText('URL'), { target: { value: 'ftp://example.com/mcp' } });
    await fireEvent.click(form().getByRole('button', { name: 'Test' }));
    expect(form().getByRole('alert').textContent).toContain('http:// or https://');
    expect(form().getByLabelText('URL').getAttribute('aria-invalid')).toBe('true');

    expect(fake.callsOf('upstreams.add')).toEqual([]);
    expect(fake.callsOf('upstreams.test')).toEqual([]);
  });

  it('tests the server and lists its tools before saving, then adds it', async () => {
    const { fake } = await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await fireEvent.input(form().getByLabelText('Name'), { target: { value: 'My files' } });
    await fireEvent.input(form().getByLabelText('Command'), { target: { value: 'node' } });
    await fireEvent.input(form().getByLabelText('Arguments, one per line'), {
      target: { value: 'server-filesystem.js\n/home/me/docs\n' },
    });
    await fireEvent.click(form().getByRole('button', { name: 'Add variable' }));
    await fireEvent.input(form().getByLabelText('Variable 1'), { target: { value: 'API_TOKEN' } });
    await fireEvent.change(form().getByLabelText('Variable 1'), { target: { value: 'API_TOKEN' } });
    const secret = form().getByLabelText('Value of API_TOKEN') as HTMLInputElement;
    await fireEvent.input(secret, { target: { value: 's3cret' } });
    expect(secret.type).toBe('password');

    await fireEvent.click(form().getByRole('button', { name: 'Test' }));
    const result = within(screen.getByRole('region', { name: 'Test result' }));
    expect(await result.findByText(/Connected to fake-server 1.2.3/)).toBeTruthy();
    expect(result.getByText('read_file')).toBeTruthy();
    expect(result.getByText('list_directory')).toBeTruthy();
    expect(fake.callsOf('upstreams.add')).toEqual([]);
    expect(fake.callsOf('upstreams.test')[0]).toMatchObject({
      config: { type: 'stdio', command: 'node', args: ['server-filesystem.js', '/home/me/docs'], env: { API_TOKEN: 's3cret' } },
    });

    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect(fake.servers.get('my-files')?.config).toMatchObject({ command: 'node', label: 'My files' });
    const card = screen.getByRole('article', { name: 'My files' });
    expect(within(card).getByText('Ready')).toBeTruthy();
    expect(within(card).getByText('2 tools')).toBeTruthy();
  });

  it('shows a failed test where it happened', async () => {
    await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await fireEvent.input(form().getByLabelText('Command'), { target: { value: 'missing-program' } });
    await fireEvent.click(form().getByRole('button', { name: 'Test' }));
    expect((await form().findByRole('alert')).textContent).toContain('spawn missing-program ENOENT');
  });

  it('warns before adding a server whose Test failed, and adds it on the second press (issue 14, item 11)', async () => {
    const { fake } = await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await fireEvent.input(form().getByLabelText('Name'), { target: { value: 'broken' } });
    await fireEvent.input(form().getByLabelText('Command'), { target: { value: 'missing-program' } });
    await fireEvent.click(form().getByRole('button', { name: 'Test' }));
    await form().findByText(/spawn missing-program ENOENT/);
    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    expect(fake.callsOf('upstreams.add')).toEqual([]);
    expect(form().getByText(/The test of this server failed/)).toBeTruthy();
    await fireEvent.click(form().getByRole('button', { name: 'Add anyway' }));
    await waitFor(() => expect(fake.callsOf('upstreams.add')).toHaveLength(1));
  });

  it('shows the hub’s refusal at the named field', async () => {
    const { fake } = await setup((f) => f.seedServer('files', { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true }));
    fake.failNext('upstreams.add', { code: 'invalid', field: 'config.command', message: 'command: not found on PATH' });
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await fireEvent.input(form().getByLabelText('Name'), { target: { value: 'other' } });
    await fireEvent.input(form().getByLabelText('Command'), { target: { value: 'nope' } });
    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    expect((await form().findByRole('alert')).textContent).toContain('not found on PATH');
    expect(form().getByLabelText('Command').getAttribute('aria-invalid')).toBe('true');
  });

  it('fills the form from a pasted mcpServers snippet', async () => {
    await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    const snippet = `{
      "mcpServers": {
        "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": { "MEMORY_FILE_PATH": "/tmp/m.json" } }
      }
    }`;
    await fireEvent.input(form().getByLabelText(/JSON with/), { target: { value: snippet } });
    await fireEvent.click(form().getByRole('button', { name: 'Fill the form' }));
    expect((form().getByLabelText('Name') as HTMLInputElement).value).toBe('memory');
    expect((form().getByLabelText('Command') as HTMLInputElement).value).toBe('npx');
    expect((form().getByLabelText('Arguments, one per line') as HTMLTextAreaElement).value).toBe('-y\n@modelcontextprotocol/server-memory');
    expect((form().getByLabelText('Value of MEMORY_FILE_PATH') as HTMLInputElement).value).toBe('/tmp/m.json');
  });

  // Issue 14, item 6: what users actually paste.
  const pasted: Array<[string, string, { name: string; command: string; args: string }]> = [
    [
      'a snippet with trailing commas',
      '{ "mcpServers": { "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory",], }, }, }',
      { name: 'memory', command: 'npx', args: '-y\n@modelcontextprotocol/server-memory' },
    ],
    [
      'a whole claude_desktop_config.json',
      '{\n  "globalShortcut": "",\n  "mcpServers": {\n    "fetch": { "command": "uvx", "args": ["mcp-server-fetch"] }\n  }\n}\n',
      { name: 'fetch', command: 'uvx', args: 'mcp-server-fetch' },
    ],
    [
      'an npx command line',
      'npx -y @modelcontextprotocol/server-filesystem "/tmp/my files"',
      { name: 'filesystem', command: 'npx', args: '-y\n@modelcontextprotocol/server-filesystem\n/tmp/my files' },
    ],
  ];
  it.each(pasted)('fills the form from %s', async (_label, text, want) => {
    await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await fireEvent.input(form().getByLabelText(/JSON with/), { target: { value: text } });
    await fireEvent.click(form().getByRole('button', { name: 'Fill the form' }));
    expect(form().queryByRole('alert')).toBeNull();
    expect((form().getByLabelText('Name') as HTMLInputElement).value).toBe(want.name);
    expect((form().getByLabelText('Command') as HTMLInputElement).value).toBe(want.command);
    expect((form().getByLabelText('Arguments, one per line') as HTMLTextAreaElement).value).toBe(want.args);
  });

  it('says in a sentence what is wrong with a pasted snippet', async () => {
    await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await fireEvent.input(form().getByLabelText(/JSON with/), { target: { value: '{"mcpServers": {"a": {"command": "npx" "args": []}}}' } });
    await fireEvent.click(form().getByRole('button', { name: 'Fill the form' }));
    const alert = (await form().findByRole('alert')).textContent ?? '';
    expect(alert).toMatch(/a comma was expected at line 1/);
    expect(alert).not.toMatch(/Unexpected token/);
  });

  it('restarts, disables and removes a server from its card', async () => {
    const { fake } = await setup((f) => f.seedServer('files', { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true }));
    const card = within(screen.getByRole('article', { name: 'files' }));
    await fireEvent.click(card.getByRole('button', { name: 'Restart' }));
    await waitFor(() => expect(fake.servers.get('files')?.restarts).toBe(1));
    await fireEvent.click(card.getByRole('button', { name: 'Disable' }));
    expect(await card.findByText('Disabled')).toBeTruthy();
    expect(fake.servers.get('files')?.config.enabled).toBe(false);
    await fireEvent.click(card.getByRole('button', { name: 'Remove…' }));
    await fireEvent.click(card.getByRole('button', { name: 'Remove files' }));
    await waitFor(() => expect(screen.queryByRole('article')).toBeNull());
    expect(fake.servers.size).toBe(0);
  });

  it('keeps the keyboard focus when Remove… and Keep swap buttons, and gives it to the Undo notice after removing', async () => {
    await setup((f) => f.seedServer('files', { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true }));
    const card = within(screen.getByRole('article', { name: 'files' }));
    await fireEvent.click(card.getByRole('button', { name: 'Remove…' }));
    await waitFor(() => expect(document.activeElement).toBe(card.getByRole('button', { name: 'Remove files' })));
    await fireEvent.click(card.getByRole('button', { name: 'Keep' }));
    await waitFor(() => expect(document.activeElement).toBe(card.getByRole('button', { name: 'Remove…' })));
    await fireEvent.click(card.getByRole('button', { name: 'Remove…' }));
    await fireEvent.click(card.getByRole('button', { name: 'Remove files' }));
    await waitFor(() => expect(screen.queryByRole('article')).toBeNull());
    await waitFor(() => expect(document.activeElement?.textContent).toMatch(/^Removed files\./));
  });

  it('drops a card\'s "cannot reach Spillway" once the hub answers again, and keeps the hub\'s own refusals', async () => {
    const fake = new FakeBackend();
    fake.seedServer('files', { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true });
    fake.seedServer('notes', { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true });
    const app = createAppState(fake, { getItem: () => '1', setItem: () => {} });
    stopAfterTest(app.start());
    render(ServersView, { servers: app.servers });
    const files = within(await screen.findByRole('article', { name: 'files' }));
    const notes = within(screen.getByRole('article', { name: 'notes' }));
    fake.failNext('upstreams.restart', { code: 'unavailable', message: UNREACHABLE_MESSAGE });
    await fireEvent.click(files.getByRole('button', { name: 'Restart' }));
    expect((await files.findByRole('alert')).textContent).toBe('Cannot reach Spillway. Check that it is running; this window reconnects by itself.');
    fake.failNext('upstreams.restart', { code: 'unavailable', message: 'notes could not restart: its program is missing' });
    await fireEvent.click(notes.getByRole('button', { name: 'Restart' }));
    await notes.findByRole('alert');

    fake.setConnected(false);
    fake.setConnected(true);
    await waitFor(() => expect(files.queryByRole('alert')).toBeNull());
    expect(notes.getByRole('alert').textContent).toContain('its program is missing');
  });

  it('offers Undo after a removal: it puts the server back, once; Dismiss stops offering it', async () => {
    const { fake } = await setup((f) => {
      f.seedServer('files', { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true, label: 'My files' });
      f.seedServer('notes', { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true });
    });
    // The confirm button names the server as its card does: by its label when it has one (audit s21).
    const removeOne = async (name: string) => {
      const card = within(screen.getByRole('article', { name }));
      await fireEvent.click(card.getByRole('button', { name: 'Remove…' }));
      await fireEvent.click(card.getByRole('button', { name: `Remove ${name}` }));
      await waitFor(() => expect(screen.queryByRole('article', { name })).toBeNull());
    };
    await removeOne('My files');
    const notice = () => screen.getByText(/^Removed/).closest('[role="status"]') as HTMLElement;
    expect(notice().textContent).toMatch(/Removed My files\./);
    await fireEvent.click(within(notice()).getByRole('button', { name: 'Undo' }));
    expect(await screen.findByRole('article', { name: 'My files' })).toBeTruthy();
    expect(fake.callsOf('upstreams.undoRemove')).toEqual([{ id: 'files' }]);
    expect(screen.queryByText(/^Removed/)).toBeNull();

    await removeOne('notes');
    await fireEvent.click(within(notice()).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText(/^Removed/)).toBeNull();
    expect(fake.servers.has('notes')).toBe(false);
  });

  it('follows live status and stderr events', async () => {
    const { fake } = await setup((f) => f.seedServer('files', { type: 'stdio', command: 'node', args: [], env: {}, enabled: true, prefix: true }));
    fake.emit({ type: 'upstream.status', level: 'error', server: 'files', status: 'error', error: 'exited with code 1' });
    fake.emit({ type: 'upstream.stderr', level: 'warn', server: 'files', line: 'Error: EACCES /root' });
    const card = within(screen.getByRole('article', { name: 'files' }));
    expect(await card.findByText('exited with code 1')).toBeTruthy();
    expect(card.getByText('Error')).toBeTruthy();
    expect(card.getByText('Error: EACCES /root')).toBeTruthy();
    // Counts agree with their noun (issue 14, item 11): one line, one restart; "Program", not "stdio".
    expect(card.getByText('Server output (1 line)')).toBeTruthy();
    expect(card.getByText('Program')).toBeTruthy();
    expect(card.queryByText('stdio')).toBeNull();
  });
});

describe('mcpServers snippets', () => {
  it('reads the forms READMEs show', () => {
    expect(parseSnippet('{"command":"uvx","args":["mcp-server-git"]}')).toEqual([
      { name: '', config: { type: 'stdio', command: 'uvx', args: ['mcp-server-git'], env: {}, cwd: undefined } },
    ]);
    expect(parseSnippet('"git": {"command":"uvx"},').map((s) => s.name)).toEqual(['git']);
    expect(parseSnippet('{"servers":{"remote":{"url":"https://x.dev/sse"}}}')[0].config).toMatchObject({ type: 'sse' });
    expect(parseSnippet('{"mcpServers":{"a":{"command":"a"},"b":{"url":"https://b.dev/mcp"}}}')).toHaveLength(2);
  });

  it('says what is wrong', () => {
    expect(() => parseSnippet('')).toThrow(/^Paste a server first/);
    expect(() => parseSnippet('{oops')).toThrow(/not JSON/);
    expect(() => parseSnippet('{"mcpServers":{}}')).toThrow(/No server found/);
  });
});

describe('Servers: a client ID for sign-in', () => {
  async function addWebServer(clientId?: string) {
    const { fake } = await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await fireEvent.input(form().getByLabelText('Name'), { target: { value: 'Notes' } });
    await fireEvent.click(form().getByLabelText('Web address (URL)'));
    await fireEvent.input(form().getByLabelText('URL'), { target: { value: 'https://notes.example.com/mcp' } });
    const field = form().getByLabelText(/Client ID for sign-in/);
    expect(field.getAttribute('aria-describedby')).toContain('server-oauth-client-help');
    if (clientId !== undefined) await fireEvent.input(field, { target: { value: clientId } });
    await fireEvent.click(form().getByRole('button', { name: 'Add server' }));
    await waitFor(() => expect(fake.callsOf('upstreams.add')).toHaveLength(1));
    return fake.callsOf('upstreams.add')[0];
  }

  it('sends the client ID typed for a web server, trimmed', async () => {
    expect(await addWebServer('  my-app-123  ')).toMatchObject({ config: { type: 'http', oauthClientId: 'my-app-123' } });
  });

  it('sends none when the field is left empty', async () => {
    expect(await addWebServer()).not.toHaveProperty('config.oauthClientId');
  });
});

describe('Servers: a sign-in in a web server’s address', () => {
  it('says where the user name and password go while the address holds them, and not otherwise', async () => {
    await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await fireEvent.click(form().getByLabelText('Web address (URL)'));
    const url = form().getByLabelText('URL');
    await fireEvent.input(url, { target: { value: 'https://notes.example.com/mcp' } });
    expect(form().queryByText(/sent as a sign-in header/)).toBeNull();
    await fireEvent.input(url, { target: { value: 'https://me:secret@notes.example.com/mcp' } });
    const hint = form().getByText(/sent as a sign-in header and kept with your other secrets/);
    expect(url.getAttribute('aria-describedby')).toContain(hint.id);
    await fireEvent.input(url, { target: { value: 'https://notes.example.com/users/@me' } });
    expect(form().queryByText(/sent as a sign-in header/)).toBeNull();
  });
});

describe('Servers: secret words of the arguments', () => {
  it('says what a ${SPILLWAY_SECRET_ARG_n} word is and where to change it, and only then', async () => {
    await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    const args = form().getByLabelText('Arguments, one per line');
    await fireEvent.input(args, { target: { value: 'server.js\n--verbose' } });
    expect(form().queryByText(/is a secret \(a key or a password\) kept out of Spillway's config file/)).toBeNull();
    await fireEvent.input(args, { target: { value: 'server.js\n${SPILLWAY_SECRET_ARG_1}' } });
    expect(form().getByText(/is a secret \(a key or a password\) kept out of Spillway's config file/).textContent).toContain(
      'type the new word under the variable of that name below',
    );
  });
});

describe('Servers: secret parts of a web address', () => {
  it('says what a ${SPILLWAY_SECRET_URL_n} part is and where to change it, and only then', async () => {
    await setup();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await fireEvent.click(form().getByLabelText('Web address (URL)'));
    const url = form().getByLabelText('URL');
    await fireEvent.input(url, { target: { value: 'https://mcp.example.com/abc/mcp' } });
    expect(form().queryByText(/is a secret \(a key or a password\) kept out of Spillway's config file/)).toBeNull();
    await fireEvent.input(url, { target: { value: 'https://mcp.example.com/${SPILLWAY_SECRET_URL_1}/mcp' } });
    const note = form().getByText(/is a secret \(a key or a password\) kept out of Spillway's config file/);
    expect(note.textContent).toContain('type the new text under the header of that name below');
    expect(url.getAttribute('aria-describedby')).toContain(note.id);
  });
});

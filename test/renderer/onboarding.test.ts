import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import OnboardingPanel from '../../renderer/src/views/OnboardingPanel.svelte';
import ActivityView from '../../renderer/src/views/ActivityView.svelte';
import { ONBOARDING_DONE_KEY, OnboardingState, type FlagStorage } from '../../renderer/src/lib/onboarding.svelte.js';
import { ActivityLog } from '../../renderer/src/lib/activity.svelte.js';
import { SpillPreviewState } from '../../renderer/src/lib/spill-preview.svelte.js';
import { foundServers, planSetup } from '../../renderer/src/lib/onboarding-plan.js';
import type { ClientIdName, ClientInfo } from '../../shared/api-clients.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
});

class MemoryFlags implements FlagStorage {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
}

/** Claude Desktop and Cursor share one server (same command line, different names); Zed is not installed. */
function fakeHub(seed?: (fake: FakeBackend) => void) {
  const fake = new FakeBackend();
  fake.clients.add('claude-desktop', 'Claude Desktop', {
    servers: { memory: 'npx -y @modelcontextprotocol/server-memory', files: 'node fs-server.js /home/me' },
  });
  fake.clients.add('cursor', 'Cursor', { servers: { 'my-memory': 'npx -y @modelcontextprotocol/server-memory' } });
  fake.clients.add('zed', 'Zed', { installed: false });
  seed?.(fake);
  return fake;
}

async function started(fake: FakeBackend, flags = new MemoryFlags()) {
  const onboarding = new OnboardingState(fake, flags);
  await onboarding.start();
  return { onboarding, flags };
}

describe('first-run detection', () => {
  it('shows setup when no server is configured, no client is connected and it was not dismissed', async () => {
    const { onboarding } = await started(fakeHub());
    expect(onboarding.phase).toBe('choose');
    expect(onboarding.clients.map((c) => c.id)).toEqual(['claude-desktop', 'cursor']);
  });

  it('stays hidden once dismissed, with a server configured, with a client connected, or with no client installed', async () => {
    const flags = new MemoryFlags();
    flags.setItem(ONBOARDING_DONE_KEY, '1');
    expect((await started(fakeHub(), flags)).onboarding.phase).toBe('hidden');
    expect((await started(fakeHub((f) => f.seedServer('everything', { type: 'stdio', command: 'node', args: [] } as never)))).onboarding.phase).toBe(
      'hidden',
    );
    expect((await started(fakeHub((f) => f.clients.add('windsurf', 'Windsurf', { state: 'current' })))).onboarding.phase).toBe('hidden');
    const none = new FakeBackend();
    none.clients.add('zed', 'Zed', { installed: false });
    expect((await started(none)).onboarding.phase).toBe('hidden');
    const withheld = fakeHub((f) => f.withhold('clients'));
    expect((await started(withheld)).onboarding.phase).toBe('hidden');
  });
});

describe('setup again, on request', () => {
  it('shows setup despite the first-run conditions (dismissed, servers configured, a client connected)', async () => {
    const flags = new MemoryFlags();
    flags.setItem(ONBOARDING_DONE_KEY, '1');
    const fake = fakeHub((f) => {
      f.seedServer('everything', { type: 'stdio', command: 'node', args: [] } as never);
      f.clients.add('windsurf', 'Windsurf', { state: 'current' });
    });
    const { onboarding } = await started(fake, flags);
    expect(onboarding.phase).toBe('hidden');
    expect(await onboarding.start({ again: true })).toBe(true);
    expect(onboarding.phase).toBe('choose');
    expect(onboarding.clients.map((c) => c.id)).toContain('claude-desktop');
  });

  it('says no when there is no app to set up, and stays hidden', async () => {
    const none = new FakeBackend();
    none.clients.add('zed', 'Zed', { installed: false });
    const onboarding = new OnboardingState(none, new MemoryFlags());
    expect(await onboarding.start({ again: true })).toBe(false);
    expect(onboarding.phase).toBe('hidden');
  });
});

describe('selection and plan', () => {
  it('lists each distinct server once, pre-picks everything sensible, and plans one import per client', async () => {
    const { onboarding } = await started(fakeHub());
    expect(onboarding.servers.map((s) => [s.name, s.in.map((x) => x.client)])).toEqual([
      ['memory', ['claude-desktop', 'cursor']],
      ['files', ['claude-desktop']],
    ]);
    expect(onboarding.servers.every((s) => onboarding.isServerPicked(s.key))).toBe(true);
    expect(onboarding.isClientPicked('claude-desktop') && onboarding.isClientPicked('cursor')).toBe(true);
    expect(onboarding.plan).toEqual([
      { client: 'claude-desktop', names: ['memory', 'files'], replace: true, connect: false, writesFile: true },
      { client: 'cursor', names: ['my-memory'], replace: true, connect: false, writesFile: true },
    ]);

    onboarding.pickServer(onboarding.servers[1].key, false);
    onboarding.pickClient('cursor', false);
    onboarding.replace = false;
    expect(onboarding.plan).toEqual([{ client: 'claude-desktop', names: ['memory'], replace: false, connect: true, writesFile: true }]);
  });

  it('does not import what Spillway already runs, yet still moves it out of a connected client', () => {
    const clients = [info('claude-desktop', 'absent'), info('cursor', 'current'), info('windsurf', 'absent')];
    const servers = foundServers([
      { client: 'claude-desktop', candidates: [cand('memory', true), cand('files', false)] },
      { client: 'cursor', candidates: [cand('files', false)] },
    ]);
    expect(servers.map((s) => [s.name, s.alreadyImported])).toEqual([
      ['memory', true],
      ['files', false],
    ]);
    const picked = { clients: new Set(['claude-desktop', 'windsurf']), servers: new Set([servers[1].key]) };
    expect(planSetup(clients, servers, { ...picked, replace: true })).toEqual([
      { client: 'claude-desktop', names: ['memory', 'files'], replace: true, connect: false, writesFile: true },
      // Already connected: only its copy of files moves behind Spillway.
      { client: 'cursor', names: ['files'], replace: true, connect: false, writesFile: true },
      { client: 'windsurf', names: [], replace: false, connect: true, writesFile: true },
    ]);
    // Without replace, files is imported once and no file loses a server.
    expect(planSetup(clients, servers, { ...picked, replace: false })).toEqual([
      { client: 'claude-desktop', names: ['files'], replace: false, connect: true, writesFile: true },
      { client: 'windsurf', names: [], replace: false, connect: true, writesFile: true },
    ]);
  });
});

describe('the same server', () => {
  it('is what the hub says is the same (it compares env and headers too): one command line with two accounts is two rows', () => {
    const alice = { ...cand('memory', false), sameAs: 'k-alice' };
    const bob = { ...cand('memory', false), sameAs: 'k-bob' };
    const rows = foundServers([
      { client: 'claude-code', candidates: [alice] },
      { client: 'cursor', candidates: [bob] },
      { client: 'windsurf', candidates: [{ ...alice }] },
    ]);
    expect(rows.map((r) => r.in.map((x) => x.client))).toEqual([['claude-code', 'windsurf'], ['cursor']]);
  });
});

function info(id: ClientIdName, state: ClientInfo['state']): ClientInfo {
  return {
    id,
    displayName: id,
    installed: true,
    configPresent: true,
    configPath: `/c/${id}.json`,
    restorable: false,
    state,
    restartRequired: false,
    kind: 'http',
    servers: 0,
  };
}
function cand(name: string, alreadyImported: boolean) {
  return { name, kind: 'stdio' as const, command: 'npx', args: [`@example/${name}`], alreadyImported, sameAs: `npx @example/${name}` };
}

describe('the setup panel', () => {
  function renderPanel(onboarding: OnboardingState) {
    let finished = 0;
    render(OnboardingPanel, { onboarding, onfinish: () => finished++ });
    return { finished: () => finished };
  }

  it('confirms with each exact entry, then runs with per-client results and restart hints', async () => {
    const fake = fakeHub();
    const { onboarding, flags } = await started(fake);
    const ui = renderPanel(onboarding);
    const panel = screen.getByRole('region', { name: 'Set up Spillway' });
    expect((within(panel).getByRole('checkbox', { name: /^Claude Desktop/ }) as HTMLInputElement).checked).toBe(true);
    expect((within(panel).getByRole('checkbox', { name: /^memory/ }) as HTMLInputElement).checked).toBe(true);
    expect(within(panel).getByText(/from Claude Desktop, Cursor/)).toBeTruthy();
    expect(within(panel).getByText(/you can undo this from Clients → Restore/)).toBeTruthy();

    await fireEvent.click(within(panel).getByRole('button', { name: 'Review changes' }));
    const confirm = await screen.findByRole('region', { name: 'Check the changes' });
    expect(fake.callsOf('clients.preview')).toEqual([
      { id: 'claude-desktop', replace: ['memory', 'files'] },
      { id: 'cursor', replace: ['my-memory'] },
    ]);
    expect(within(confirm).getByLabelText('Entry for Claude Desktop').textContent).toContain('"args": ["bridge"]');
    expect(within(confirm).getByLabelText('Entry for Cursor').textContent).toContain('/mcp');
    expect(within(confirm).getByText('/home/me/.config/claude-desktop/mcp.json')).toBeTruthy();
    expect(within(confirm).getByText(/Takes out of that file \(Spillway runs them now\): memory, files/)).toBeTruthy();
    expect(fake.callsOf('clients.import')).toEqual([]);

    await fireEvent.click(within(confirm).getByRole('button', { name: 'Connect and import' }));
    const done = await screen.findByRole('region', { name: 'Setup finished' });
    expect(fake.callsOf('clients.import')).toEqual([
      { id: 'claude-desktop', names: ['memory', 'files'], replace: true },
      { id: 'cursor', names: ['my-memory'], replace: true },
    ]);
    const claude = within(within(done).getByRole('listitem', { name: 'Claude Desktop result' }));
    expect(claude.getByText('Connected')).toBeTruthy();
    expect(claude.getByText('Now running in Spillway: memory, files.')).toBeTruthy();
    expect(claude.getByText('Quit and reopen Claude Desktop.')).toBeTruthy();
    // Cursor's copy of memory was the same server: Spillway runs it once.
    expect(
      within(within(done).getByRole('listitem', { name: 'Cursor result' })).getByText('The same server already runs in Spillway: my-memory.'),
    ).toBeTruthy();
    expect((within(done).getByRole('progressbar', { name: 'Setup progress' }) as HTMLProgressElement).value).toBe(2);
    expect([...fake.servers.keys()]).toEqual(['memory', 'files']);
    expect(flags.getItem(ONBOARDING_DONE_KEY)).toBe('1');
    expect(onboarding.summary).toEqual({
      connected: ['Claude Desktop', 'Cursor'],
      hints: ['Quit and reopen Claude Desktop.'],
      servers: ['memory', 'files'],
    });

    await fireEvent.click(within(done).getByRole('button', { name: 'Open Activity' }));
    expect(ui.finished()).toBe(1);
  });

  it('shows a failure on the client it happened to, and the other clients still get set up', async () => {
    const fake = fakeHub((f) => f.clients.add('windsurf', 'Windsurf'));
    const { onboarding } = await started(fake);
    renderPanel(onboarding);
    await fireEvent.click(screen.getByRole('button', { name: 'Review changes' }));
    fake.failNext('clients.connect', { code: 'invalid', message: 'mcp_config.json is not valid JSON; it was left as it is' });
    await fireEvent.click(await screen.findByRole('button', { name: 'Connect and import' }));
    const done = await screen.findByRole('region', { name: 'Setup finished' });
    const windsurf = within(within(done).getByRole('listitem', { name: 'Windsurf result' }));
    expect(windsurf.getByText('Failed')).toBeTruthy();
    expect(windsurf.getByRole('alert').textContent).toContain('not valid JSON');
    const claude = within(within(done).getByRole('listitem', { name: 'Claude Desktop result' }));
    expect(claude.getByText('Connected')).toBeTruthy();
    expect(claude.queryByRole('alert')).toBeNull();
    expect(onboarding.summary?.connected).toEqual(['Claude Desktop', 'Cursor']);
  });

  it('leaves a server that uses the app’s own variables in the app, and says why before anything is written', async () => {
    const fake = fakeHub((f) =>
      f.clients.add('vscode', 'VS Code', {
        servers: { 'ws-files': 'npx -y @modelcontextprotocol/server-filesystem ${workspaceFolder}', fetch: 'uvx mcp-server-fetch' },
      }),
    );
    const { onboarding } = await started(fake);
    renderPanel(onboarding);
    const panel = screen.getByRole('region', { name: 'Set up Spillway' });
    const files = within(panel).getByRole('checkbox', { name: /^ws-files/ }) as HTMLInputElement;
    expect(files.checked).toBe(false);
    expect(files.disabled).toBe(true);
    expect(
      within(panel).getByText('Not for Spillway: it uses ${workspaceFolder}, which only VS Code can fill in; it stays in VS Code.'),
    ).toBeTruthy();
    expect(onboarding.plan.find((s) => s.client === 'vscode')).toEqual({
      client: 'vscode',
      names: ['fetch'],
      replace: true,
      connect: false,
      writesFile: true,
    });

    await fireEvent.click(within(panel).getByRole('button', { name: 'Review changes' }));
    const confirm = await screen.findByRole('region', { name: 'Check the changes' });
    const vscode = within(within(confirm).getByRole('listitem', { name: 'Changes to VS Code' }));
    expect(vscode.getByText('Not moved: ws-files uses ${workspaceFolder}, which only VS Code can fill in; it stays in VS Code.')).toBeTruthy();
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Connect and import' }));
    await screen.findByRole('region', { name: 'Setup finished' });
    expect(fake.callsOf('clients.import')).toContainEqual({ id: 'vscode', names: ['fetch'], replace: true });
    expect(fake.clients.byId.get('vscode')!.servers).toEqual({ 'ws-files': 'npx -y @modelcontextprotocol/server-filesystem ${workspaceFolder}' });
  });

  it('does not offer Connect when every change was refused in the preview, and says why', async () => {
    const fake = new FakeBackend();
    fake.clients.add('cursor', 'Cursor');
    fake.clients.add('windsurf', 'Windsurf');
    fake.settings = { ...fake.settings, port: 0 };
    const { onboarding, flags } = await started(fake);
    renderPanel(onboarding);
    await fireEvent.click(screen.getByRole('button', { name: 'Review changes' }));
    const confirm = await screen.findByRole('region', { name: 'Check the changes' });
    expect(
      within(confirm)
        .getAllByRole('alert')
        .map((a) => a.textContent),
    ).toEqual([expect.stringContaining('port 0'), expect.stringContaining('port 0')]);
    expect((within(confirm).getByRole('button', { name: 'Connect and import' }) as HTMLButtonElement).disabled).toBe(true);
    expect(within(confirm).getByText(/None of these changes can be made right now.*press Back and Review changes again/)).toBeTruthy();
    await onboarding.run();
    expect(fake.callsOf('clients.connect')).toEqual([]);
    expect(flags.getItem(ONBOARDING_DONE_KEY)).toBeNull();
  });

  it('when every step fails, says nothing was connected and what to do, and comes back next time', async () => {
    const fake = new FakeBackend();
    fake.clients.add('windsurf', 'Windsurf');
    const { onboarding, flags } = await started(fake);
    renderPanel(onboarding);
    await fireEvent.click(screen.getByRole('button', { name: 'Review changes' }));
    fake.failNext('clients.connect', { code: 'invalid', message: 'mcp_config.json is not valid JSON; it was left as it is' });
    await fireEvent.click(await screen.findByRole('button', { name: 'Connect and import' }));
    const done = await screen.findByRole('region', { name: 'Nothing was connected' });
    expect(within(done).getByText('Failed')).toBeTruthy();
    expect(
      within(done).getByText(/Nothing was connected\. Fix the problem shown under each app, then open Clients and press Set up again/),
    ).toBeTruthy();
    expect(within(done).queryByRole('button', { name: 'Open Activity' })).toBeNull();
    expect(flags.getItem(ONBOARDING_DONE_KEY)).toBeNull();
    expect(onboarding.summary).toBeUndefined();
    expect((await started(fake, flags)).onboarding.phase).toBe('choose');
  });

  it('Skip and Escape close it without writing; "don’t show again" decides whether it comes back', async () => {
    const fake = fakeHub();
    const first = await started(fake);
    renderPanel(first.onboarding);
    // Not pre-checked beside Skip: skipping alone means "not now" (issue 14, item 11).
    const box = within(screen.getByRole('region', { name: 'Set up Spillway' })).getByRole('checkbox', { name: "Don't show this again" });
    expect((box as HTMLInputElement).checked).toBe(false);
    await fireEvent.keyDown(screen.getByRole('button', { name: 'Review changes' }), { key: 'Escape' });
    expect(screen.queryByRole('region', { name: 'Set up Spillway' })).toBeNull();
    expect(first.onboarding.phase).toBe('hidden');
    expect(first.flags.getItem(ONBOARDING_DONE_KEY)).toBeNull();
    expect(fake.callsOf('clients.import')).toEqual([]);
    expect(fake.callsOf('clients.connect')).toEqual([]);

    const second = await started(fake);
    renderPanel(second.onboarding);
    const panel = screen.getByRole('region', { name: 'Set up Spillway' });
    await fireEvent.click(within(panel).getByRole('checkbox', { name: "Don't show this again" }));
    await fireEvent.click(within(panel).getByRole('button', { name: 'Skip' }));
    expect(screen.queryByRole('region')).toBeNull();
    expect(second.flags.getItem(ONBOARDING_DONE_KEY)).toBe('1');
  });
});

describe('Activity after setup', () => {
  it('waits for the first call with what to do next, and says so live when it arrives', async () => {
    const fake = new FakeBackend();
    const log = new ActivityLog(fake, { schedule: (flush) => queueMicrotask(flush) });
    stop = log.start();
    render(ActivityView, {
      log,
      spill: new SpillPreviewState(fake),
      testHeight: 600,
      setup: { connected: ['Claude Desktop'], hints: ['Quit and reopen Claude Desktop.'], servers: ['everything'] },
    });
    const note = await screen.findByRole('status', { name: 'First call' });
    await waitFor(() => expect(note.textContent).toContain('Waiting for the first call'));
    expect(note.textContent).toContain('Connected: Claude Desktop.');
    expect(note.textContent).toContain('Quit and reopen Claude Desktop.');
    // A request that runs a tool: asking an app to list its tools calls none.
    expect(note.textContent).toContain('ask your app to do something with one of your tools, naming it (for example “use everything to …”)');
    expect(note.textContent).not.toMatch(/list the tools you have/);

    // Progress before the first call: the app connecting.
    fake.emit({ type: 'catalog.changed', level: 'info', tools: 18, resources: 0, prompts: 0 });
    fake.emit({ type: 'session.opened', level: 'info', session: 's1', client: 'claude-ai', transport: 'bridge' });
    await waitFor(() =>
      expect(screen.getByRole('status', { name: 'First call' }).textContent).toContain('claude-ai connected to Spillway (18 tools).'),
    );

    fake.emit({
      type: 'call.finished',
      level: 'info',
      callId: 'c1',
      client: 'claude-ai',
      server: 'everything',
      tool: 'echo',
      exposedName: 'everything__echo',
      durationMs: 3,
      isError: false,
      action: 'pass',
      bytesUpstream: 10,
      bytesDelivered: 10,
    });
    await waitFor(() =>
      expect(screen.getByRole('status', { name: 'First call' }).textContent).toContain(
        'The first call came through Spillway: everything · echo from claude-ai',
      ),
    );
  });
});

/**
 * The tray menu model: status lines, entries, icon choice and actions — from hand-made statuses (tables)
 * and from a real hub whose Pause goes through the real control dispatcher into config.json.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Status, UpstreamInfo } from '../../shared/api.js';
import { ServerConfigSchema } from '../../shared/config.js';
import { createAppHub, type AppHub } from '../../electron/core/app/app-hub.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import {
  runTrayAction,
  statusLines,
  toMenuTemplate,
  trayIconFile,
  trayIconState,
  trayMenuModel,
  trayTooltip,
  type TrayAction,
  type TrayEffects,
  type TrayState,
} from '../../electron/main/tray-menu.js';

function upstream(id: string, status: UpstreamInfo['status']): UpstreamInfo {
  return {
    id,
    config: ServerConfigSchema.parse({ type: 'stdio', command: 'node', enabled: status !== 'disabled' }),
    status,
    tools: status === 'ready' ? 3 : 0,
    resources: 0,
    prompts: 0,
    stderrTail: [],
    restarts: 0,
  };
}

function status(upstreams: UpstreamInfo[], paused = false): Status {
  return {
    version: '0.1.0',
    endpoint: 'http://127.0.0.1:47821/mcp',
    dataDir: '/data',
    configFile: '/data/config.json',
    paused,
    upstreams,
    sessions: [],
    tools: 0,
  };
}

const state = (s: Status | undefined, extra: Partial<TrayState> = {}): TrayState => ({
  status: s,
  startAtLogin: false,
  startAtLoginSupported: true,
  ...extra,
});

describe('status lines', () => {
  it.each<[string, TrayState, string[]]>([
    ['starting', state(undefined), ['Starting…']],
    ['failed to start', state(undefined, { startError: 'port 47821 is in use' }), ['Not running: port 47821 is in use']],
    ['no servers', state(status([])), ['No servers yet']],
    ['one ready', state(status([upstream('a', 'ready')])), ['Server ready']],
    ['one not ready', state(status([upstream('a', 'stopped')])), ['Server not ready']],
    ['all ready', state(status([upstream('a', 'ready'), upstream('b', 'ready')])), ['All 2 servers ready']],
    ['disabled ones are not counted', state(status([upstream('a', 'ready'), upstream('off', 'disabled')])), ['Server ready']],
    [
      'some connecting',
      state(status([upstream('a', 'ready'), upstream('b', 'connecting'), upstream('c', 'stopped')])),
      ['1 of 3 servers ready · 1 connecting'],
    ],
    ['one error', state(status([upstream('a', 'ready'), upstream('gh', 'error')])), ['1 of 2 servers ready', '1 error: gh']],
    [
      'many errors are capped',
      state(status(['a', 'b', 'c', 'd', 'e'].map((id) => upstream(id, 'error')))),
      ['0 of 5 servers ready', '5 errors: a, b, c and 2 more'],
    ],
    ['paused', state(status([upstream('a', 'ready')], true)), ['Server ready', 'Paused: results pass through untouched']],
    // Started on first use: idle until a call comes, and available all the same.
    ['one idle', state(status([upstream('files', 'idle')])), ['Server ready']],
    ['idle and ready', state(status([upstream('a', 'idle'), upstream('b', 'ready')])), ['All 2 servers ready']],
    ['needs a sign-in', state(status([upstream('notion', 'needs-sign-in')])), ['Server not ready', 'notion needs you to sign in (open Spillway)']],
    [
      'two need a sign-in',
      state(status([upstream('a', 'ready'), upstream('notion', 'needs-sign-in'), upstream('linear', 'needs-sign-in')])),
      ['1 of 3 servers ready', 'notion, linear need you to sign in (open Spillway)'],
    ],
    [
      'a long start error is clipped',
      state(undefined, { startError: `Invalid config in /home/ada/.config/Spillway/config.json: ${'x'.repeat(200)}` }),
      [`Not running: Invalid config in /home/ada/.config/Spillway/config.json: ${'x'.repeat(18)}…`],
    ],
  ])('%s', (_name, input, expected) => {
    expect(statusLines(input)).toEqual(expected);
    expect(trayTooltip(input)).toBe(['Spillway', ...expected].join('\n'));
  });
});

describe('menu model', () => {
  it('has the status, Open, Pause, Copy endpoint, Start at login and Quit', () => {
    const model = trayMenuModel(state(status([upstream('a', 'ready')])));
    expect(model).toEqual([
      { type: 'status', label: 'Server ready' },
      { type: 'separator' },
      { type: 'action', action: 'open', label: 'Open Spillway', enabled: true },
      { type: 'action', action: 'toggle-pause', label: 'Pause', enabled: true },
      { type: 'action', action: 'copy-endpoint', label: 'Copy endpoint', enabled: true },
      { type: 'separator' },
      { type: 'checkbox', action: 'toggle-start-at-login', label: 'Start at login', checked: false, enabled: true },
      { type: 'separator' },
      { type: 'action', action: 'quit', label: 'Quit Spillway', enabled: true },
    ]);
  });

  it('offers Resume while paused', () => {
    const model = trayMenuModel(state(status([], true)));
    expect(model.find((e) => e.type === 'action' && e.action === 'toggle-pause')).toMatchObject({ label: 'Resume' });
  });

  it('disables what needs the hub while it is not running, but keeps Open and Quit', () => {
    const model = trayMenuModel(state(undefined, { startError: 'bad config' }));
    const enabled = model.flatMap((e) => (e.type === 'action' ? [[e.action, e.enabled] as const] : []));
    expect(Object.fromEntries(enabled)).toEqual({ open: true, 'toggle-pause': false, 'copy-endpoint': false, quit: true });
  });

  it('shows Start at login checked and disabled where the OS has no login items', () => {
    const model = trayMenuModel(state(status([]), { startAtLogin: true, startAtLoginSupported: false }));
    expect(model.find((e) => e.type === 'checkbox')).toMatchObject({ checked: true, enabled: false });
  });

  it('maps to Menu.buildFromTemplate items whose clicks report the action', () => {
    const clicked: TrayAction[] = [];
    const template = toMenuTemplate(trayMenuModel(state(status([upstream('a', 'error')]))), (a) => clicked.push(a));
    expect(template[0]).toEqual({ label: 'Server not ready', enabled: false });
    expect(template[1]).toEqual({ label: '1 error: a', enabled: false });
    for (const item of template) item.click?.();
    expect(clicked).toEqual(['open', 'toggle-pause', 'copy-endpoint', 'toggle-start-at-login', 'quit']);
    expect(template.filter((i) => i.type === 'separator')).toHaveLength(3);
    expect(template.find((i) => i.type === 'checkbox')).toMatchObject({ label: 'Start at login', checked: false });
  });
});

describe('tray icon', () => {
  it.each<[string, TrayState, string, string, string]>([
    ['normal', state(status([upstream('a', 'ready')])), 'normal', 'trayTemplate.png', 'tray.png'],
    ['paused', state(status([upstream('a', 'ready')], true)), 'paused', 'trayPausedTemplate.png', 'tray-paused.png'],
    ['error beats paused', state(status([upstream('a', 'error')], true)), 'error', 'trayErrorTemplate.png', 'tray-error.png'],
    ['not running', state(undefined, { startError: 'x' }), 'error', 'trayErrorTemplate.png', 'tray-error.png'],
    ['idle is normal', state(status([upstream('a', 'idle')])), 'normal', 'trayTemplate.png', 'tray.png'],
    ['a sign-in to do', state(status([upstream('a', 'needs-sign-in')])), 'error', 'trayErrorTemplate.png', 'tray-error.png'],
  ])('%s', (_name, input, iconState, mac, other) => {
    expect(trayIconState(input)).toBe(iconState);
    expect(trayIconFile('darwin', trayIconState(input))).toBe(mac);
    expect(trayIconFile('win32', trayIconState(input))).toBe(other);
    expect(trayIconFile('linux', trayIconState(input))).toBe(other);
  });
});

describe('actions against a real hub', () => {
  let app: AppHub | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await app?.hub.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    app = undefined;
    dir = undefined;
  });

  function effects(log: string[]): TrayEffects {
    return {
      dispatch: (method, body) => app!.dispatcher.dispatch(method, body),
      openWindow: () => log.push('open'),
      copyText: (text) => log.push(`copy ${text}`),
      setStartAtLogin: (on) => {
        log.push(`login ${on}`);
      },
      quit: () => log.push('quit'),
    };
  }

  it('Pause and Resume toggle settings.paused through the dispatcher and the config file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-tray-'));
    const paths = resolvePaths({ dataDir: dir, os: { home: dir, platform: process.platform, env: {} } });
    app = await createAppHub({ paths, platform: process.platform, env: {}, port: 0 });
    await app.hub.start();
    const log: string[] = [];
    const read = () => state(app!.status.report());

    expect(trayMenuModel(read()).find((e) => e.type === 'action' && e.action === 'toggle-pause')).toMatchObject({ label: 'Pause' });
    const paused = await runTrayAction('toggle-pause', read(), effects(log));
    expect(paused).toMatchObject({ ok: true, value: { paused: true } });
    expect(JSON.parse(await readFile(paths.configFile, 'utf8')).settings.paused).toBe(true);
    expect(statusLines(read())).toContain('Paused: results pass through untouched');
    expect(trayIconState(read())).toBe('paused');
    expect(trayMenuModel(read()).find((e) => e.type === 'action' && e.action === 'toggle-pause')).toMatchObject({ label: 'Resume' });

    await runTrayAction('toggle-pause', read(), effects(log));
    expect(JSON.parse(await readFile(paths.configFile, 'utf8')).settings.paused).toBe(false);

    await runTrayAction('copy-endpoint', read(), effects(log));
    await runTrayAction('open', read(), effects(log));
    await runTrayAction('toggle-start-at-login', read(), effects(log));
    await runTrayAction('quit', read(), effects(log));
    expect(log).toEqual([`copy ${app.hub.url}`, 'open', 'login true', 'quit']);
    expect(app.hub.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('Pause while the hub is not running is refused with a result', async () => {
    const result = await runTrayAction('toggle-pause', state(undefined, { startError: 'x' }), effects([]));
    expect(result).toMatchObject({ ok: false, code: 'unavailable' });
  });
});

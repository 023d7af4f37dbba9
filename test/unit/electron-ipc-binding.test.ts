/**
 * The control contract over IPC, in Node: the binding from ipc-binding.ts with a real hub and its real
 * dispatcher behind it, and plain objects standing in for ipcMain and the window's webContents (the few
 * members the binding uses). The preload, end to end over the same binding, is in electron-preload.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { api, type ApiResult } from '../../shared/api.js';
import type { HubEvent } from '../../shared/events.js';
import { createAppHub, type AppHub } from '../../electron/core/app/app-hub.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import {
  BRIDGE_ARG_PREFIX,
  IPC_CHANNELS,
  bindControlIpc,
  bridgeArgument,
  bridgeWiring,
  checkSender,
  type EventTargetLike,
  type InvokeEventLike,
  type IpcMainLike,
} from '../../electron/main/ipc-binding.js';
import type { RendererLocation } from '../../electron/main/navigation-guard.js';

class FakeIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>>();
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>): void {
    // Electron throws on a second handler for one channel; so does the fake.
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** What ipcRenderer.invoke does on the main side, including the structured clone of the answer. */
  async invoke(channel: string, event: InvokeEventLike, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return structuredClone(await handler(event, ...structuredClone(args)));
  }
}

class FakeWebContents implements EventTargetLike {
  readonly sent: { channel: string; args: unknown[] }[] = [];
  destroyed = false;
  constructor(
    readonly id: number,
    public url: string,
  ) {}
  isDestroyed(): boolean {
    return this.destroyed;
  }
  getURL(): string {
    return this.url;
  }
  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args: structuredClone(args) });
  }
  /** An invoke event as Electron builds it for a message from this webContents' main frame. */
  event(frame: { url?: string; parent?: unknown } | null = {}): InvokeEventLike {
    return { sender: { id: this.id }, senderFrame: frame === null ? null : { url: frame.url ?? this.url, parent: frame.parent ?? null } };
  }
}

const rendererIndex = join(tmpdir(), 'Spillway App', 'dist', 'renderer', 'index.html');
const FILE_LOCATION: RendererLocation = { kind: 'file', url: pathToFileURL(rendererIndex).href };

describe('sender check', () => {
  const wc = new FakeWebContents(7, `${FILE_LOCATION.url}#/servers`);
  it.each<[string, InvokeEventLike, number | undefined, boolean]>([
    ['the main window, main frame, our page', wc.event(), 7, true],
    ['another webContents', new FakeWebContents(8, wc.url).event(), 7, false],
    ['no window open', wc.event(), undefined, false],
    ['a subframe', wc.event({ parent: { url: wc.url } }), 7, false],
    ['a frame that is gone', wc.event(null), 7, false],
    ['another file', wc.event({ url: pathToFileURL(join(tmpdir(), 'evil.html')).href }), 7, false],
    ['a web page', wc.event({ url: 'https://example.com/' }), 7, false],
  ])('%s', (_name, event, trusted, expected) => {
    expect(checkSender(event, trusted, FILE_LOCATION).trusted).toBe(expected);
  });

  it('a frame accessor that throws counts as gone', () => {
    const event = {
      sender: { id: 7 },
      get senderFrame(): never {
        throw new Error('Render frame was disposed');
      },
    };
    expect(checkSender(event, 7, FILE_LOCATION)).toEqual({ trusted: false, reason: 'the sending frame is gone' });
  });

  it('the dev server: same origin only', () => {
    const dev: RendererLocation = { kind: 'dev', url: 'http://localhost:5174/' };
    const page = new FakeWebContents(1, 'http://localhost:5174/#/activity');
    expect(checkSender(page.event(), 1, dev).trusted).toBe(true);
    expect(checkSender(page.event({ url: 'http://localhost:5175/' }), 1, dev).trusted).toBe(false);
  });
});

describe('bridge wiring', () => {
  it('carries the channels and every method of the contract, nothing more', () => {
    expect(bridgeWiring()).toEqual({ call: IPC_CHANNELS.call, event: IPC_CHANNELS.event, methods: Object.keys(api) });
  });

  it('is one argument that survives any command line (no spaces or quotes)', () => {
    const arg = bridgeArgument();
    expect(arg.startsWith(BRIDGE_ARG_PREFIX)).toBe(true);
    expect(arg).not.toMatch(/[\s"'\\]/);
    expect(JSON.parse(decodeURIComponent(arg.slice(BRIDGE_ARG_PREFIX.length)))).toEqual(bridgeWiring());
  });
});

describe('binding with a real hub', () => {
  let app: AppHub;
  let dir: string;
  let ipcMain: FakeIpcMain;
  let window: FakeWebContents | undefined;
  let unbind: () => void;
  const refused: string[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-ipc-'));
    const paths = resolvePaths({ dataDir: dir, os: { home: dir, platform: process.platform, env: {} } });
    app = await createAppHub({ paths, platform: process.platform, env: {}, port: 0 });
    await app.hub.start();
    ipcMain = new FakeIpcMain();
    window = new FakeWebContents(3, FILE_LOCATION.url);
    refused.length = 0;
    unbind = bindControlIpc({
      ipcMain,
      dispatch: (method, body) => app.dispatcher.dispatch(method, body),
      trustedSenderId: () => window?.id,
      location: FILE_LOCATION,
      subscribe: (listener) => app.hub.events.subscribe(listener),
      eventTarget: () => window,
      onRefused: (reason) => refused.push(reason),
    });
  });

  afterEach(async () => {
    unbind();
    await app.hub.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const call = (method: unknown, req: unknown, event = window!.event()) =>
    ipcMain.invoke(IPC_CHANNELS.call, event, { method, req }) as Promise<ApiResult<unknown>>;

  it('registers exactly one handler, on the call channel', () => {
    expect([...ipcMain.handlers.keys()]).toEqual([IPC_CHANNELS.call]);
  });

  it('answers a contract method with the hub’s value', async () => {
    const result = await call('status', {});
    expect(result).toMatchObject({ ok: true, value: { endpoint: app.hub.url, paused: false, upstreams: [] } });
    expect(api.status.res.safeParse((result as { value: unknown }).value).success).toBe(true);
  });

  it('changes settings through the contract', async () => {
    expect(await call('settings.set', { paused: true })).toMatchObject({ ok: true, value: { paused: true } });
    expect(app.hub.settings.paused).toBe(true);
  });

  it('validates the request with the contract’s schema and names the field', async () => {
    expect(await call('settings.set', { port: 'eighty' })).toMatchObject({ ok: false, code: 'invalid', field: 'port' });
    expect(await call('upstreams.remove', {})).toMatchObject({ ok: false, code: 'invalid', field: 'id' });
    expect(app.hub.settings.port).not.toBe('eighty');
  });

  it('returns results for unknown methods and malformed envelopes instead of throwing', async () => {
    expect(await call('fs.readFile', {})).toMatchObject({ ok: false, code: 'not_found' });
    expect(await call(42, {})).toMatchObject({ ok: false, code: 'invalid', field: 'method' });
    expect(await ipcMain.invoke(IPC_CHANNELS.call, window!.event(), 'status')).toMatchObject({ ok: false, code: 'invalid' });
    expect(await ipcMain.invoke(IPC_CHANNELS.call, window!.event())).toMatchObject({ ok: false, code: 'invalid' });
  });

  it('refuses other senders with a result, and changes nothing', async () => {
    const stranger = new FakeWebContents(99, FILE_LOCATION.url);
    expect(await call('settings.set', { paused: true }, stranger.event())).toMatchObject({ ok: false, code: 'unauthorized' });
    expect(await call('settings.set', { paused: true }, window!.event({ parent: {} }))).toMatchObject({ ok: false, code: 'unauthorized' });
    expect(await call('settings.set', { paused: true }, window!.event({ url: 'https://evil.example/' }))).toMatchObject({
      ok: false,
      code: 'unauthorized',
    });
    expect(app.hub.settings.paused).toBe(false);
    expect(refused).toEqual(['not the Spillway window', 'not the main frame', 'unexpected page https://evil.example/']);
  });

  it('refuses every call while there is no window', async () => {
    const old = window!;
    window = undefined;
    expect(await call('status', {}, old.event())).toMatchObject({ ok: false, code: 'unauthorized' });
  });

  it('a dispatcher that throws still yields a result', async () => {
    const other = new FakeIpcMain();
    const off = bindControlIpc({
      ipcMain: other,
      dispatch: () => Promise.reject(new Error('boom')),
      trustedSenderId: () => 3,
      location: FILE_LOCATION,
      subscribe: () => () => {},
      eventTarget: () => undefined,
    });
    expect(await other.invoke(IPC_CHANNELS.call, window!.event(), { method: 'status', req: {} })).toEqual({
      ok: false,
      code: 'internal',
      message: 'boom',
    });
    off();
  });

  it('pushes hub events to the window on the event channel', async () => {
    const event = app.hub.emit({ type: 'log', level: 'info', message: 'hello from the hub' });
    const pushed = window!.sent.filter((s) => s.channel === IPC_CHANNELS.event).map((s) => s.args[0] as HubEvent);
    expect(pushed).toContainEqual(event);
    expect(window!.sent.every((s) => s.channel === IPC_CHANNELS.event)).toBe(true);
  });

  it('a settings change made over IPC arrives back as a config.changed event', async () => {
    await call('settings.set', { paused: true });
    const types = window!.sent.map((s) => (s.args[0] as HubEvent).type);
    expect(types).toContain('config.changed');
  });

  it('sends nothing to a destroyed window or to one that left the renderer page', () => {
    window!.destroyed = true;
    app.hub.emit({ type: 'log', level: 'info', message: 'one' });
    window!.destroyed = false;
    window!.url = 'https://example.com/';
    app.hub.emit({ type: 'log', level: 'info', message: 'two' });
    expect(window!.sent).toEqual([]);
  });

  it('unbinding removes the handler and stops the events', () => {
    unbind();
    expect(ipcMain.handlers.size).toBe(0);
    app.hub.emit({ type: 'log', level: 'info', message: 'after' });
    expect(window!.sent).toEqual([]);
    unbind = () => {};
  });
});

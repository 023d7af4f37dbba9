/**
 * The preload, run the way a sandboxed renderer runs it: compiled from preload.cts to CommonJS, wrapped
 * in a function that receives a `require` which can load 'electron' only (a sandboxed preload cannot load
 * zod, shared/api.ts or a sibling file), with `process.argv` carrying what main passes in
 * additionalArguments. Its ipcRenderer is wired to the real IPC binding in front of a real hub.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { api } from '../../shared/api.js';
import type { HubEvent } from '../../shared/events.js';
import { createAppHub, type AppHub } from '../../electron/core/app/app-hub.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { bindControlIpc, bridgeArgument, type InvokeEventLike } from '../../electron/main/ipc-binding.js';
import type { RendererLocation } from '../../electron/main/navigation-guard.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const source = readFileSync(join(root, 'electron/preload/preload.cts'), 'utf8');

/** Compiled as `tsc -p electron/tsconfig.build.json` compiles it: .cts under NodeNext → CommonJS. */
const compiled = ts.transpileModule(source, {
  fileName: 'preload.cts',
  compilerOptions: {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    verbatimModuleSyntax: true,
  },
}).outputText;

type Listener = (event: unknown, ...args: unknown[]) => void;

interface Bridge {
  call(method: unknown, req: unknown): Promise<unknown>;
  onEvent(fn: unknown): () => void;
}

/** Loads the preload in a fresh realm; returns what it put on the page's window, and its console errors. */
function loadPreload(argv: string[], ipcRenderer: object) {
  const world: Record<string, unknown> = {};
  const errors: string[] = [];
  const requested: string[] = [];
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, value: unknown) => (world[key] = value) },
    ipcRenderer,
  };
  const sandboxRequire = (id: string) => {
    requested.push(id);
    if (id === 'electron') return electron;
    throw new Error(`module not found: ${id} (sandboxed preloads can only require a few built-ins)`);
  };
  const wrapper = vm.runInNewContext(`(function (require, process, exports, module) {\n${compiled}\n})`, {
    console: { error: (...a: unknown[]) => errors.push(a.join(' ')), log: () => {}, warn: () => {} },
  }) as (require: unknown, process: unknown, exports: unknown, module: unknown) => void;
  const module = { exports: {} };
  wrapper(sandboxRequire, { argv, contextIsolated: true, sandboxed: true }, module.exports, module);
  return { world, errors, requested };
}

const rendererIndex = join(tmpdir(), 'Spillway', 'dist', 'renderer', 'index.html');
const location: RendererLocation = { kind: 'file', url: pathToFileURL(rendererIndex).href };

describe('the preload in a sandbox', () => {
  let app: AppHub;
  let dir: string;
  let unbind: () => void;
  let handler: ((event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>) | undefined;
  let listeners: Map<string, Set<Listener>>;
  let invokes: number;
  const WINDOW_ID = 5;

  /** ipcRenderer of the window, connected to the binding's ipcMain handler and webContents.send. */
  const ipcRenderer = {
    invoke: async (channel: string, ...args: unknown[]) => {
      invokes++;
      if (!handler || channel !== 'spillway:call') throw new Error(`No handler registered for '${channel}'`);
      const event: InvokeEventLike = { sender: { id: WINDOW_ID }, senderFrame: { url: location.url, parent: null } };
      return structuredClone(await handler(event, ...structuredClone(args)));
    },
    on: (channel: string, listener: Listener) => {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)!.add(listener);
    },
    removeListener: (channel: string, listener: Listener) => listeners.get(channel)?.delete(listener),
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-preload-'));
    const paths = resolvePaths({ dataDir: dir, os: { home: dir, platform: process.platform, env: {} } });
    app = await createAppHub({ paths, platform: process.platform, env: {}, port: 0 });
    await app.hub.start();
    listeners = new Map();
    invokes = 0;
    unbind = bindControlIpc({
      ipcMain: {
        handle: (_channel, listener) => (handler = listener),
        removeHandler: () => (handler = undefined),
      },
      dispatch: (method, body) => app.dispatcher.dispatch(method, body),
      trustedSenderId: () => WINDOW_ID,
      location,
      subscribe: (listener) => app.hub.events.subscribe(listener),
      eventTarget: () => ({
        id: WINDOW_ID,
        isDestroyed: () => false,
        getURL: () => location.url,
        send: (channel, ...args) => {
          const ipcEvent = { sender: ipcRenderer, senderId: 0 };
          for (const l of listeners.get(channel) ?? []) l(ipcEvent, ...structuredClone(args));
        },
      }),
    });
  });

  afterEach(async () => {
    unbind();
    await app.hub.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('requires nothing but electron, and exposes window.spillway with call and onEvent only', () => {
    const { world, errors, requested } = loadPreload(['electron', bridgeArgument()], ipcRenderer);
    expect(requested).toEqual(['electron']);
    expect(errors).toEqual([]);
    expect(Object.keys(world)).toEqual(['spillway']);
    expect(Object.keys(world.spillway as object).sort()).toEqual(['call', 'onEvent']);
  });

  it('exposes nothing without the bridge argument (or with a damaged one), and says so', () => {
    for (const argv of [['electron'], ['electron', '--spillway-bridge=%7Bnot-json'], ['electron', '--spillway-bridge=%7B%7D']]) {
      const { world, errors } = loadPreload(argv, ipcRenderer);
      expect(world).toEqual({});
      expect(errors.join()).toMatch(/bridge argument is missing/);
    }
  });

  it('calls a contract method end to end and gets the hub’s ApiResult', async () => {
    const bridge = loadPreload(['electron', bridgeArgument()], ipcRenderer).world.spillway as Bridge;
    const result = await bridge.call('status', {});
    expect(result).toMatchObject({ ok: true, value: { endpoint: app.hub.url } });
    expect(await bridge.call('settings.set', { paused: true })).toMatchObject({ ok: true, value: { paused: true } });
    expect(app.hub.settings.paused).toBe(true);
    expect(await bridge.call('settings.set', { port: -1 })).toMatchObject({ ok: false, code: 'invalid', field: 'port' });
  });

  it('refuses names outside the contract before anything reaches IPC', async () => {
    const bridge = loadPreload(['electron', bridgeArgument()], ipcRenderer).world.spillway as Bridge;
    for (const method of ['fs.readFile', '__proto__', 'constructor', '', 42, undefined]) {
      expect(await bridge.call(method, {})).toMatchObject({ ok: false, code: 'not_found' });
    }
    expect(invokes).toBe(0);
  });

  it('lets every method of the contract through (the list comes from shared/api.ts)', async () => {
    const bridge = loadPreload(['electron', bridgeArgument()], ipcRenderer).world.spillway as Bridge;
    for (const method of Object.keys(api)) {
      // The hub answers each (possibly with a validation error); none is refused by the preload.
      const result = (await bridge.call(method, {})) as { ok: boolean; message?: string };
      expect(result.message ?? '', method).not.toMatch(/^Unknown method/);
    }
    expect(invokes).toBe(Object.keys(api).length);
  });

  it('delivers pushed hub events to subscribers — the payload only — until they unsubscribe', () => {
    const bridge = loadPreload(['electron', bridgeArgument()], ipcRenderer).world.spillway as Bridge;
    const received: unknown[][] = [];
    const off = bridge.onEvent((...args: unknown[]) => received.push(args));
    const first = app.hub.emit({ type: 'log', level: 'info', message: 'first' });
    off();
    app.hub.emit({ type: 'log', level: 'info', message: 'second' });
    expect(received).toEqual([[first]]);
    expect((received[0][0] as HubEvent).type).toBe('log');
    expect(listeners.get('spillway:event')?.size ?? 0).toBe(0);
    expect(() => bridge.onEvent('not a function')).toThrow(/needs a function/);
  });
});

/**
 * The sandboxed preload: exposes `window.spillway = { call, onEvent }` and nothing else.
 *
 * A sandboxed preload may only `require('electron')` and a few built-ins — not zod, not shared/api.ts, not
 * a sibling file — so it carries no names of its own: the main process passes the IPC channels and the
 * contract's method list in one process argument (see electron/main/ipc-binding.ts, `bridgeArgument`).
 * Without that argument nothing is exposed. Compiled by tsc to CommonJS (`preload.cjs`).
 */
import electron = require('electron');

type ApiFailure = { ok: false; code: 'not_found' | 'invalid'; message: string; field?: string };

interface BridgeWiring {
  call: string;
  event: string;
  methods: string[];
}

interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/** The one switch main sets in webPreferences.additionalArguments (ipc-binding.ts BRIDGE_ARG_PREFIX). */
const BRIDGE_ARG_PREFIX = '--spillway-bridge=';

function readWiring(argv: readonly string[]): BridgeWiring | undefined {
  const arg = argv.find((a) => a.startsWith(BRIDGE_ARG_PREFIX));
  if (!arg) return undefined;
  try {
    const value = JSON.parse(decodeURIComponent(arg.slice(BRIDGE_ARG_PREFIX.length))) as Partial<BridgeWiring>;
    if (typeof value.call !== 'string' || typeof value.event !== 'string' || !Array.isArray(value.methods)) return undefined;
    return { call: value.call, event: value.event, methods: value.methods.filter((m): m is string => typeof m === 'string') };
  } catch {
    return undefined;
  }
}

function createBridge(ipc: IpcRendererLike, wiring: BridgeWiring) {
  const methods = new Set(wiring.methods);
  return {
    /** Calls one control method; resolves to an ApiResult. Unknown names never reach IPC. */
    call(method: string, req: unknown): Promise<unknown> {
      if (typeof method !== 'string' || !methods.has(method)) {
        const refused: ApiFailure = { ok: false, code: 'not_found', message: `Unknown method: ${String(method)}` };
        return Promise.resolve(refused);
      }
      return ipc.invoke(wiring.call, { method, req });
    },
    /** Receives every pushed hub event; returns the unsubscribe. The IPC event object stays here. */
    onEvent(fn: (event: unknown) => void): () => void {
      if (typeof fn !== 'function') throw new TypeError('onEvent needs a function');
      const listener = (_event: unknown, payload: unknown) => fn(payload);
      ipc.on(wiring.event, listener);
      return () => {
        ipc.removeListener(wiring.event, listener);
      };
    },
  };
}

const wiring = readWiring(process.argv);
if (wiring) {
  electron.contextBridge.exposeInMainWorld('spillway', createBridge(electron.ipcRenderer, wiring));
} else {
  console.error('Spillway preload: the bridge argument is missing; window.spillway is not available.');
}

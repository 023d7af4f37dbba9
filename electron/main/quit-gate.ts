/**
 * Quitting waits for the hub to stop (upstream children reaped, endpoint closed, log flushed). Electron's
 * `before-quit` cannot be awaited, so the first one is cancelled, the hub is stopped, and the quit is asked
 * again; that second one passes. Pure: tested with a fake event.
 */
import type { ApiResult } from '../../shared/api.js';

export interface QuitGateOptions {
  /** Stops the hub; safe to call more than once. */
  stop(): Promise<void>;
  /** Asks the app to quit again (app.quit). */
  quit(): void;
  /** Told when stopping failed; the app quits anyway. */
  onStopError?(err: unknown): void;
}

export interface QuitGate {
  /** The `before-quit` listener. */
  beforeQuit(event: { preventDefault(): void }): void;
  /** True from the first quit request on (windows then close for real instead of going to the tray). */
  readonly quitting: boolean;
}

export function createQuitGate(options: QuitGateOptions): QuitGate {
  let quitting = false;
  let stopped = false;
  let stopping: Promise<void> | undefined;
  return {
    get quitting() {
      return quitting;
    },
    beforeQuit(event) {
      quitting = true;
      if (stopped) return;
      event.preventDefault();
      stopping ??= options
        .stop()
        .catch((err: unknown) => options.onStopError?.(err))
        .finally(() => {
          stopped = true;
          options.quit();
        });
    },
  };
}

/** A control call: the window's (IPC) and the tray's. */
export type ControlDispatch = (method: string, body: unknown) => Promise<ApiResult<unknown>>;

/** What a control call gets once Quit has begun. */
export const QUITTING_ANSWER = { ok: false, code: 'unavailable', message: 'Spillway is quitting. Start it again to make changes.' } as const;

/**
 * The control calls, refused without being run from the first quit request on. The window stays open
 * while the hub stops, and a call served then (a click in flight) could start what the stop has already
 * passed, such as a server restarted after the hub reaped its children: it would outlive the app.
 */
export function refuseWhileQuitting(gate: Pick<QuitGate, 'quitting'>, dispatch: ControlDispatch): ControlDispatch {
  return (method, body) => (gate.quitting ? Promise.resolve({ ...QUITTING_ANSWER }) : dispatch(method, body));
}

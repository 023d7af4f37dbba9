/**
 * The desktop shell's own state: window bounds and "start at login". Kept in `app-state.json` beside the
 * hub's `config.json` (both in userData), not inside it.
 *
 * Why a separate file: the hub owns config.json — it loads it once, validates it, and rewrites the whole
 * object on every change from its in-memory copy. A shell key written there by electron-store after the
 * hub loaded would be dropped by the hub's next save, and electron-store would be writing into a file
 * the hub may have refused as invalid (which must never be rewritten). Everything the headless hub reads
 * (servers, settings, paused) stays in config.json in electron-store's format; only state that means
 * nothing without a window lives here.
 *
 * Pure: the store is injected (electron-store in the app, `conf` — the same engine and file format — in
 * tests), and whatever it holds is parsed, so a hand-edited or damaged file falls back to defaults.
 */
import { z } from 'zod';

const RectSchema = z.object({
  x: z.number().finite(),
  y: z.number().finite(),
  width: z.number().finite().positive(),
  height: z.number().finite().positive(),
});

export const AppStateSchema = z.object({
  startAtLogin: z.boolean().catch(false).default(false),
  window: z
    .object({
      bounds: RectSchema.optional().catch(undefined),
      maximized: z.boolean().catch(false).default(false),
    })
    .catch({ maximized: false })
    .default({ maximized: false }),
});
export type AppState = z.infer<typeof AppStateSchema>;

/** The part of electron-store / conf used here. */
export interface KeyValueStore {
  readonly store: Record<string, unknown>;
  set(key: string, value: unknown): void;
}

export const APP_STATE_FILE_NAME = 'app-state';

export class AppStateStore {
  constructor(private readonly backing: KeyValueStore) {}

  read(): AppState {
    let raw: unknown;
    try {
      raw = this.backing.store;
    } catch {
      raw = {};
    }
    const parsed = AppStateSchema.safeParse(raw ?? {});
    return parsed.success ? parsed.data : AppStateSchema.parse({});
  }

  setStartAtLogin(on: boolean): void {
    this.backing.set('startAtLogin', on);
  }

  setWindow(window: AppState['window']): void {
    this.backing.set('window', AppStateSchema.shape.window.parse(window));
  }
}

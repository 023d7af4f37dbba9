/**
 * Requests for the window from outside the app (a second instance, macOS 'activate'). Plain Node: main.ts
 * connects it to Electron's events. One that comes before there is a window (the hub still starts) is
 * kept, and the window opens once main.ts has built it.
 */
import { HIDDEN_ARG } from './login-item.js';

export class WindowRequests {
  #show: (() => void) | undefined;
  #asked = false;

  /** The user asked for the window: shown now, or once there is one. */
  ask(): void {
    if (this.#show) this.#show();
    else this.#asked = true;
  }

  /**
   * A second instance started. One started by the login item (`--hidden`: the Windows Run key, the XDG
   * autostart entry) while Spillway already runs, e.g. started a moment earlier by an AI app's bridge,
   * asked for no window; any other launch did.
   */
  secondInstance(argv: readonly string[]): void {
    if (!argv.includes(HIDDEN_ARG)) this.ask();
  }

  /** The window exists from now on and is shown by `show`; true when someone asked for it before. */
  attach(show: () => void): boolean {
    this.#show = show;
    return this.#asked;
  }
}

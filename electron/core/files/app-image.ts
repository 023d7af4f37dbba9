/**
 * Which Linux AppImage this executable runs from, if any: the desktop shell names that file in AI apps'
 * bridge entries and the login item (electron/main), and the bridge runs it to start the app (electron/cli).
 */
import { posix } from 'node:path';

/**
 * The AppImage file this executable runs from: the AppImage runtime sets APPIMAGE to it and APPDIR to its
 * mount. Only when the executable is inside that mount: a program started from another AppImage (an AI
 * app packaged so) inherits that one's variables.
 */
export function runningAppImage(execPath: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  return env.APPIMAGE && env.APPDIR && !posix.relative(env.APPDIR, execPath).startsWith('..') ? env.APPIMAGE : undefined;
}

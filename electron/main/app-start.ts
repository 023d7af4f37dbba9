/**
 * How the app's start ends, beside main.ts and tested in Node: the mark `npm start` waits for (an exit
 * before it is Electron failing to start: cli/start.js then runs the hub headless), and what a failed
 * start tells the user.
 */
import { writeFileSync } from 'node:fs';

/** Another hub (`spillway serve`, or one a bridge started) serves this data folder: the app must not be a second. */
export const ALREADY_SERVED =
  'Spillway is already running for this data folder outside the desktop app (started in a terminal with "spillway serve", or by an AI app). ' +
  'Stop that copy (press Ctrl+C in its terminal, or end its process), then start Spillway again.';

/** Writes the file `npm start` named in SPILLWAY_UP_FILE, and drops the variable so the hub's servers never get it. */
export function markAppUp(env: NodeJS.ProcessEnv, pid: number, log: (message: string) => void): void {
  const file = env.SPILLWAY_UP_FILE;
  if (!file) return;
  delete env.SPILLWAY_UP_FILE;
  try {
    writeFileSync(file, `${pid}\n`);
  } catch (err) {
    log(`Could not tell npm start that the app is up: ${(err as Error).message}`);
  }
}

export interface StartFailureDialog {
  type: 'error';
  title: string;
  message: string;
  detail: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
}

/** The dialog for a failed start. Another hub serving the folder is no config problem: the one way on is to quit. */
export function startFailureDialog(startError: string, servedElsewhere: boolean): StartFailureDialog {
  const buttons = servedElsewhere ? ['Quit'] : ['Show the config file', 'Quit'];
  return {
    type: 'error',
    title: 'Spillway',
    message: 'Spillway could not start',
    detail: servedElsewhere ? startError : `${startError}\n\nNothing was changed. Fix the problem and start Spillway again.`,
    buttons,
    defaultId: 0,
    cancelId: buttons.length - 1,
  };
}

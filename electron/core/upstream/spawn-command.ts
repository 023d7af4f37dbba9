import { win32 } from 'node:path';

/** What to hand to `child_process.spawn` for a configured command. */
export interface SpawnCommand {
  command: string;
  args: string[];
  /** True when `args` are already quoted for cmd.exe and must reach it untouched. */
  windowsVerbatimArguments: boolean;
  /** True when the configured command runs inside `cmd.exe` (its exit code 9009 = not found). */
  viaCmd: boolean;
}

/** Launchers that are `.cmd` shims on Windows, which CreateProcess cannot start directly. */
const WINDOWS_SHIMS = new Set(['npx', 'npm', 'uvx', 'pnpm', 'yarn', 'bunx']);

// cmd.exe's metacharacters; escaping them with ^ is how cross-spawn (used by the SDK) does it.
const CMD_META = /([()\][%!^"`<>&|;, *?])/g;

/**
 * On win32, commands that are batch files or shims (`npx`, `uvx`, `*.cmd`, `*.bat`, names without an
 * extension) are started as `cmd.exe /d /s /c "<command> <args>"` with cmd quoting, since
 * CreateProcess runs only executables (and Node refuses `.cmd` without a shell since CVE-2024-27980).
 * Elsewhere the command is returned unchanged.
 */
export function resolveSpawnCommand(command: string, args: readonly string[], platform: NodeJS.Platform, comspec = 'cmd.exe'): SpawnCommand {
  if (platform !== 'win32' || !needsCmd(command)) {
    return { command, args: [...args], windowsVerbatimArguments: false, viaCmd: false };
  }
  const file = win32.normalize(command);
  // npm's cmd shims in node_modules/.bin pass %* through cmd a second time.
  const twice = /node_modules[\\/]\.bin[\\/][^\\/]+\.cmd$/i.test(file);
  const line = [escapeCmdCommand(file), ...args.map((arg) => escapeCmdArgument(arg, twice))].join(' ');
  return { command: comspec, args: ['/d', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true, viaCmd: true };
}

function needsCmd(command: string): boolean {
  const base = win32.basename(command).toLowerCase();
  const ext = win32.extname(base);
  if (ext === '.cmd' || ext === '.bat' || ext === '') return true;
  return WINDOWS_SHIMS.has(base);
}

function escapeCmdCommand(command: string): string {
  return command.replace(CMD_META, '^$1');
}

/** Quotes one argument for the C runtime's argv parser, then escapes it for cmd.exe. */
export function escapeCmdArgument(arg: string, doubleEscape = false): string {
  // Backslashes before a quote are doubled and the quote escaped; trailing backslashes doubled
  // because a quote follows them once the argument is wrapped.
  let quoted = arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, '$1$1');
  quoted = `"${quoted}"`.replace(CMD_META, '^$1');
  return doubleEscape ? quoted.replace(CMD_META, '^$1') : quoted;
}

/**
 * What `spillway --help` and `spillway <command> --help` print: every command with every flag it takes.
 * The client ids are written out (shared/api-clients.ts loads zod, which the bridge must not wait for).
 */

export const COMMAND_USAGE = {
  serve: `  spillway serve [--config FILE] [--data-dir DIR] [--port N] [--port-fallback] [--stdio]
      Runs the hub headless. Prints "Spillway listening on http://127.0.0.1:PORT/mcp" when ready.
      --port N listens on port N (0 picks a free port); --port-fallback picks a free one when the port
      is taken (the bridge starts its hub so). --stdio also serves one MCP session on stdin/stdout.`,
  token: `  spillway token [--data-dir DIR] [--config FILE]
      Prints the bearer token for the endpoint (the token of the data folder's hub).`,
  bridge: `  spillway bridge [--data-dir DIR] [--config FILE] [--socket PATH] [--url URL] [--client ID] [--no-start]
      Relays MCP on stdin/stdout to the hub of the data folder (for stdio-only clients such as Claude
      Desktop); starts that hub if it is not running, unless --no-start. --config: the config file that
      hub starts on (default: the one it last ran, else config.json in the data folder). --socket and
      --url: where to reach the hub instead of its own socket and address. --client: the app's id.`,
  clients: `  spillway clients list | connect <id> | disconnect <id> | import <id> [server…] [--replace] | restore <id>
                   [--yes] [--data-dir DIR] [--config FILE]
      Connects AI apps through Spillway, with a backup before every write; --yes skips the confirmation.
      import --replace also removes the imported servers from the app's file (Spillway serves them).
      Client ids: claude-desktop, claude-code, cursor, vscode, windsurf, cline, zed, lm-studio, gemini-cli, codex.`,
} as const;

export type CommandName = keyof typeof COMMAND_USAGE;

export function isCommand(name: string | undefined): name is CommandName {
  return name !== undefined && Object.hasOwn(COMMAND_USAGE, name);
}

const ENVIRONMENT = 'Environment: SPILLWAY_CONFIG (config file), SPILLWAY_DATA_DIR (data folder); an empty one counts as not set.';

/** The usage of one command, or of all of them. */
export function usage(command?: CommandName): string {
  const commands = command ? [COMMAND_USAGE[command]] : Object.values(COMMAND_USAGE);
  return `Usage:\n${commands.join('\n')}\n\n${ENVIRONMENT}`;
}

/** Whether `--help` or `-h` is among a command's arguments (before a `--` that ends the options). */
export function asksHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

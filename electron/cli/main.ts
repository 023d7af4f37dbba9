/**
 * `spillway` — the plain-Node entry points: serve (the headless hub), token, and what later issues add.
 * Returns an exit code instead of calling process.exit, so tests can drive it.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import { resolvePaths, type AppPaths } from '../core/files/app-paths.js';

const USAGE = `Usage:
  spillway serve [--config FILE] [--data-dir DIR] [--port N] [--port-fallback] [--stdio]
      Runs the hub headless. Prints "Spillway listening on http://127.0.0.1:PORT/mcp" when ready.
      --port 0 picks a free port; --port-fallback picks one when the port is taken (the bridge starts
      its hub so). --stdio also serves one MCP session on stdin/stdout.
  spillway token [--data-dir DIR]
      Prints the bearer token for the endpoint.
  spillway bridge [--data-dir DIR] [--config FILE] [--socket PATH] [--url URL] [--no-start]
      Relays MCP on stdin/stdout to the hub of the data folder (for stdio-only clients such as Claude
      Desktop); starts that hub if it is not running (on the config file it last ran), unless --no-start.
  spillway clients list | connect <id> | disconnect <id> | import <id> [server…] [--replace] | restore <id> [--yes]
      Connects AI apps (claude-desktop, claude-code, cursor, vscode, windsurf, cline, zed, lm-studio,
      gemini-cli, codex) through Spillway, with a backup before every write; --yes skips the confirmation.

Environment: SPILLWAY_CONFIG (config file), SPILLWAY_DATA_DIR (data folder).`;

function osFacts() {
  return { home: homedir(), platform: process.platform, env: process.env };
}

function paths(values: { config?: string; 'data-dir'?: string }): AppPaths {
  return resolvePaths({ dataDir: values['data-dir'], configFile: values.config, os: osFacts() });
}

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      stdio: { type: 'boolean', default: false },
      'port-fallback': { type: 'boolean', default: false },
    },
    strict: true,
  });
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      console.error(`spillway: --port must be a whole number from 0 to 65535 (got "${values.port}")`);
      return 2;
    }
  }
  const stdio = values.stdio ?? false;
  // With --stdio, stdout carries MCP messages only; everything human goes to stderr.
  const say = (line: string) => (stdio ? process.stderr : process.stdout).write(`${line}\n`);
  // Loaded per command: the bridge starts on every client launch and must not pay for the hub's imports.
  const [{ startHeadless }, { ConfigError }] = await Promise.all([import('../core/app/headless.js'), import('../../shared/config.js')]);
  let running;
  try {
    running = await startHeadless({
      paths: paths(values),
      port,
      stdio,
      portFallback: values['port-fallback'],
      platform: process.platform,
      env: process.env,
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`spillway: ${err.message}`);
      console.error('The file was not changed. Fix it (or move it away) and try again.');
      return 2;
    }
    const e = err as NodeJS.ErrnoException & { port?: number };
    if (e.code === 'EADDRINUSE') {
      const taken = e.port ?? port;
      console.error(
        `spillway: port ${taken ?? 'from the config'} is already in use by another program (is Spillway already running?). ` +
          `Close that program, or choose another port: --port N (--port 0 picks a free one), or the port in Spillway's Settings.`,
      );
      return 2;
    }
    console.error(`spillway: ${e.message ?? err}`);
    return 1;
  }
  say(`Spillway listening on ${running.hub.url}`);
  if (stdio) {
    // A stdio client keeps this stream in its own log files: the link with the token stays out of it.
    const chosen = values['data-dir'] ?? process.env.SPILLWAY_DATA_DIR;
    const dataDir = chosen === undefined ? '' : ` --data-dir ${JSON.stringify(chosen)}`;
    process.stderr.write(
      `To open the Spillway window, run \`spillway token${dataDir}\` to see your token, then open ${running.hub.endpoint.origin}/?token=<your token>\n`,
    );
  } else {
    process.stderr.write(`Open the Spillway window: ${running.uiUrl}\n`);
  }
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      await running.stop();
      resolve(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (stdio) process.stdin.once('end', stop);
    running.onStopped(() => resolve(0));
  });
}

async function token(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, config: { type: 'string' } }, strict: true });
  const { dataDir, tokenFile } = paths(values);
  // Only read, never made here: a mistyped folder must not get a token of its own that no hub accepts.
  const text = await readFile(tokenFile, 'utf8').then(
    (t) => t.trim(),
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return '';
      throw err;
    },
  );
  // Shorter than a token: the hub makes a new one when it starts (access-token.ts).
  if (text.length < 16) {
    console.error(`spillway: Spillway has not run with the data folder ${dataDir} yet, so it has no token.`);
    console.error('Check the folder name (--data-dir, or SPILLWAY_DATA_DIR), or start Spillway once (the app, or `spillway serve`) and try again.');
    return 1;
  }
  process.stdout.write(`${text}\n`);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(rest);
      case 'token':
        return await token(rest);
      case 'bridge':
        return await (await import('./bridge/command.js')).bridgeCommand(rest);
      case 'clients':
        return await (await import('./clients-command.js')).clientsCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        console.log(USAGE);
        return command === undefined ? 2 : 0;
      default:
        console.error(`spillway: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`spillway: ${(err as Error).message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
}

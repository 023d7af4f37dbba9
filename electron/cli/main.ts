/**
 * `spillway` — the plain-Node entry points: serve (the headless hub), token, and what later issues add.
 * Returns an exit code instead of calling process.exit, so tests can drive it.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import { resolvePaths, type AppPaths } from '../core/files/app-paths.js';
import { pathProblem, portProblem } from './plain-errors.js';
import { asksHelp, isCommand, usage } from './usage.js';

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
    // Digits only: Number('') is 0 (a random port), and Number(' 8') or Number('0x50') a port not written.
    port = /^[0-9]{1,5}$/.test(values.port) ? Number(values.port) : NaN;
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
  const where = paths(values);
  let running;
  try {
    running = await startHeadless({
      paths: where,
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
    const refused = portProblem(err, port);
    if (refused) {
      console.error(`spillway: ${refused}`);
      return 2;
    }
    console.error(`spillway: ${(await pathProblem(err, where)) ?? e.message ?? err}`);
    return 1;
  }
  say(`Spillway listening on ${running.hub.url}`);
  if (stdio) {
    // A stdio client keeps this stream in its own log files: the link with the token stays out of it.
    const chosen = values['data-dir'] || process.env.SPILLWAY_DATA_DIR;
    const dataDir = chosen ? ` --data-dir ${JSON.stringify(where.dataDir)}` : '';
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
  let text: string;
  try {
    text = (await readFile(tokenFile, 'utf8')).trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      console.error(`spillway: cannot read ${tokenFile} (${code ?? (err as Error).message}): ${unreadableToken(code)}`);
      return 1;
    }
    text = '';
  }
  // Shorter than a token: the hub makes a new one when it starts (access-token.ts).
  if (text.length < 16) {
    console.error(`spillway: Spillway has not run with the data folder ${dataDir} yet, so it has no token.`);
    console.error('Check the folder name (--data-dir, or SPILLWAY_DATA_DIR), or start Spillway once (the app, or `spillway serve`) and try again.');
    return 1;
  }
  process.stdout.write(`${text}\n`);
  return 0;
}

/** The next step when the token file is there but cannot be read. */
function unreadableToken(code: string | undefined): string {
  if (code === 'EISDIR') {
    return 'it is a folder, not a token file. Move it away, then start Spillway (the app, or `spillway serve`) to make a new token.';
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return 'you may not read it. Run this as the user Spillway runs as, or make the file yours (the hub keeps it readable by its owner only).';
  }
  return 'check the data folder (--data-dir DIR, or SPILLWAY_DATA_DIR) and try again.';
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (isCommand(command) && asksHelp(rest)) {
    console.log(usage(command));
    return 0;
  }
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
        console.log(usage());
        return command === undefined ? 2 : 0;
      default:
        console.error(`spillway: unknown command "${command}"\n\n${usage()}`);
        return 2;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`spillway: ${(err as Error).message}\n\n${usage(isCommand(command) ? command : undefined)}`);
      return 2;
    }
    // Anything else: one line, not a stack trace.
    console.error(`spillway: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

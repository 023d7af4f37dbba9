/**
 * The CLI's words for a refused port and for data folder, config file and token file problems: the path,
 * what is wrong, and the next step, never Node's bare code. Permission errors are made up here (tests
 * may run as root, who is refused nothing).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { pathProblem, portProblem } from '../../electron/cli/plain-errors.js';
import { CLIENT_IDS } from '../../shared/api-clients.js';
import { COMMAND_USAGE, asksHelp, usage } from '../../electron/cli/usage.js';

let dir: string;
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'spillway-plain-errors-'))));
afterEach(() => rm(dir, { recursive: true, force: true }));

const paths = (dataDir: string, configFile?: string) => resolvePaths({ dataDir, configFile, os: { home: dir, platform: process.platform, env: {} } });
const errno = (code: string, props: Record<string, unknown> = {}) => Object.assign(new Error(`${code}: raw`), { code, ...props });

it('a port below 1024 the system refuses: says so and names --port', () => {
  const said = portProblem(errno('EACCES', { syscall: 'listen', port: 80 }), 80);
  expect(said).toContain('port 80');
  expect(said).toContain('below 1024 need administrator rights');
  expect(said).toContain('--port N');
  expect(portProblem(errno('EACCES', { syscall: 'open' }), 80)).toBeUndefined();
});

it('a data folder that is a file, or under a file', async () => {
  await writeFile(join(dir, 'afile'), '');
  const p = paths(join(dir, 'afile'));
  const said = await pathProblem(errno('EEXIST', { path: p.dataDir, syscall: 'mkdir' }), p);
  expect(said).toContain(`the data folder ${p.dataDir} is a file`);
  expect(said).toContain('--data-dir DIR (or SPILLWAY_DATA_DIR)');
  const under = paths(join(dir, 'afile', 'sub'));
  expect(await pathProblem(errno('ENOTDIR'), under)).toContain('part of its path is a file');
});

it('a config file that is a folder', async () => {
  await mkdir(join(dir, 'cfg'));
  const p = paths(join(dir, 'data'), join(dir, 'cfg'));
  const said = await pathProblem(errno('EISDIR', { syscall: 'read' }), p);
  expect(said).toContain(`the config file ${join(dir, 'cfg')} is a folder`);
  expect(said).toContain('--config FILE');
});

it('a data folder Spillway may not write in; an error about another file keeps its own words', async () => {
  const p = paths(join(dir, 'data'));
  const said = await pathProblem(errno('EACCES', { path: join(p.dataDir, 'spill'), syscall: 'mkdir' }), p);
  expect(said).toContain(`may not write in the data folder ${p.dataDir}`);
  expect(said).toContain('--data-dir DIR');
  expect(await pathProblem(errno('EACCES', { path: join(dir, 'elsewhere.json') }), p)).toBeUndefined();
  expect(await pathProblem(new Error('plain'), p)).toBeUndefined();
});

it('the help of each command lists every flag it takes, and every client id', () => {
  expect(COMMAND_USAGE.serve).toContain('--port-fallback');
  for (const flag of ['--config', '--socket', '--url', '--client', '--no-start', '--data-dir']) expect(COMMAND_USAGE.bridge).toContain(flag);
  expect(COMMAND_USAGE.token).toContain('--config');
  for (const id of CLIENT_IDS) expect(usage('clients')).toContain(id);
  expect(asksHelp(['--port', '1', '-h'])).toBe(true);
  expect(asksHelp(['--', '--help'])).toBe(false);
});

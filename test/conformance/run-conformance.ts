/**
 * Runs the third-party suite `@modelcontextprotocol/conformance` (server side) against an MCP endpoint
 * and parses what it reports. The suite is started from node_modules with the current Node binary,
 * never downloaded at test time. See test/conformance/README.md for the scenarios.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface ConformanceOptions {
  /** The Streamable HTTP endpoint, e.g. `http://127.0.0.1:PORT/mcp`. */
  url: string;
  /** YAML baseline (`server: [scenario, ...]`) passed as `--expected-failures`. */
  expectedFailuresFile?: string;
  /** Where the suite writes one `server-<scenario>-<time>/checks.json` per scenario; use a fresh dir. */
  outDir: string;
  /** Run one scenario instead of a suite. */
  scenario?: string;
  /** `active` (the default: everything not pending), `all` or `pending`. */
  suite?: 'active' | 'all' | 'pending';
  /** Kill the suite after this long (default 90 s; a full active run takes ~2 s locally). */
  timeoutMs?: number;
  /** Extra environment for the suite process. */
  env?: NodeJS.ProcessEnv;
}

export interface ConformanceFailure {
  name: string;
  reason: string;
}

/** The suite's baseline verdict, present when `expectedFailuresFile` was given. */
export interface BaselineVerdict {
  /** Failed and listed in the baseline. */
  expected: string[];
  /** Failed but not listed: these make the run fail. */
  unexpected: string[];
  /** Listed but passed: the baseline is stale, which also makes the run fail. */
  stale: string[];
}

export interface ConformanceResult {
  /** Scenarios with no FAILURE and no WARNING check. */
  passed: string[];
  /** Scenarios with a FAILURE or WARNING check (the suite's baseline counts warnings as failures). */
  failed: ConformanceFailure[];
  /** Combined stdout and stderr of the suite. */
  raw: string;
  /** The suite's exit code (0 = clean, or every failure expected by the baseline); null if killed. */
  exitCode: number | null;
  baseline?: BaselineVerdict;
}

interface Check {
  id: string;
  name?: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  description?: string;
  errorMessage?: string;
}

const require = createRequire(import.meta.url);

/** Absolute path of the suite's CLI entry (its package.json `bin.conformance`). */
export function conformanceBin(): string {
  const packageJson = require.resolve('@modelcontextprotocol/conformance/package.json');
  const manifest = require(packageJson) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin.conformance;
  return path.join(path.dirname(packageJson), bin);
}

/** Runs `conformance server --url ...` and resolves with the scenarios that passed and failed. */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceResult> {
  const args = [conformanceBin(), 'server', '--url', options.url, '-o', options.outDir];
  if (options.scenario) args.push('--scenario', options.scenario);
  else if (options.suite) args.push('--suite', options.suite);
  if (options.expectedFailuresFile) args.push('--expected-failures', options.expectedFailuresFile);

  const { raw, exitCode, timedOut } = await runProcess(args, options.timeoutMs ?? 90_000, options.env);
  const fromFiles = await readScenarioChecks(options.outDir);
  const summary = parseSummary(raw);
  if (options.scenario && !summary.has(options.scenario)) summary.set(options.scenario, exitCode === 0);

  const passed: string[] = [];
  const failed: ConformanceFailure[] = [];
  const names = new Set([...summary.keys(), ...fromFiles.keys()]);
  for (const name of names) {
    const checks = fromFiles.get(name);
    if (!checks) {
      // The scenario threw before writing its checks; the suite printed why.
      failed.push({ name, reason: crashReason(raw, name) ?? 'no checks.json written' });
      continue;
    }
    const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
    if (bad.length === 0) passed.push(name);
    else
      failed.push({ name, reason: bad.map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? check.description ?? ''}`).join('; ') });
  }
  if (timedOut) failed.push({ name: '(suite)', reason: `timed out after ${options.timeoutMs ?? 90_000} ms` });

  return {
    passed,
    failed,
    raw,
    exitCode,
    ...(options.expectedFailuresFile ? { baseline: parseBaseline(raw) } : {}),
  };
}

function runProcess(args: string[], timeoutMs: number, env?: NodeJS.ProcessEnv) {
  return new Promise<{ raw: string; exitCode: number | null; timedOut: boolean }>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    let raw = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ raw, exitCode, timedOut });
    });
  });
}

/** scenario → checks, from `<outDir>/server-<scenario>-<ISO time>/checks.json` (newest run wins). */
async function readScenarioChecks(outDir: string): Promise<Map<string, Check[]>> {
  const result = new Map<string, Check[]>();
  let entries: string[];
  try {
    entries = (await readdir(outDir)).sort(); // ISO timestamps sort chronologically
  } catch {
    return result;
  }
  for (const entry of entries) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (!match) continue;
    try {
      const checks = JSON.parse(await readFile(path.join(outDir, entry, 'checks.json'), 'utf8')) as Check[];
      result.set(match[1], checks);
    } catch {
      // A run killed mid-write leaves no usable file; the summary still names the scenario.
    }
  }
  return result;
}

// The escape character is built from its code: a literal one in a regex reads as a typo to the linter.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** scenario → no failed checks, from the `=== SUMMARY ===` block of a suite run. */
function parseSummary(raw: string): Map<string, boolean> {
  const summary = new Map<string, boolean>();
  const block = raw.replace(ANSI, '').split('=== SUMMARY ===')[1] ?? '';
  for (const match of block.matchAll(/^([✓✗]) (\S+): \d+ passed, \d+ failed/gmu)) summary.set(match[2], match[1] === '✓');
  return summary;
}

function crashReason(raw: string, scenario: string): string | undefined {
  const line = raw.split('\n').find((text) => text.startsWith(`Failed to run scenario ${scenario}:`));
  return line?.trim();
}

/** The three lists the suite prints after comparing a run with `--expected-failures`. */
function parseBaseline(raw: string): BaselineVerdict {
  const verdict: BaselineVerdict = { expected: [], unexpected: [], stale: [] };
  let current: string[] | undefined;
  for (const line of raw.replace(ANSI, '').split('\n')) {
    if (line.startsWith('Expected failures (in baseline)')) current = verdict.expected;
    else if (line.startsWith('Stale baseline entries')) current = verdict.stale;
    else if (line.startsWith('Unexpected failures (not in baseline)')) current = verdict.unexpected;
    else if (current && /^ {2}[~✓✗] \S/u.test(line)) current.push(line.slice(4).trim());
    else if (line.trim() !== '') current = undefined;
  }
  return verdict;
}

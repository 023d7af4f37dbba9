/** Hubs a bridge started on its own (detached): found by their data folder, stopped at the end of a test. */
import { readFile, readdir } from 'node:fs/promises';
import { alive } from './processes.js';

/** Spillway hub processes (`spillway.js serve`) whose command line names this data folder (Linux /proc). */
export async function processesMentioning(dir: string): Promise<number[]> {
  const out: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const args = cmdline.split('\0');
    if (args.includes('serve') && args.includes(dir)) out.push(Number(entry));
  }
  return out;
}

/** The command line of a process, as its arguments (Linux /proc). */
export async function commandLine(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
}

/** Stops every hub serving this data folder and waits (bounded) for each to end. */
export async function stopHubsOf(dir: string): Promise<void> {
  for (const pid of await processesMentioning(dir)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      continue;
    }
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  }
}

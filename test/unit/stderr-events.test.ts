/**
 * Servers' stderr lines reach the event log at a bounded rate per server; the lines past it are counted
 * and reported in one event (audit s11, item 1: a flooding server grew memory and logs without limit).
 */
import { describe, expect, it } from 'vitest';
import type { HubEventInput } from '../../shared/events.js';
import { StderrEvents } from '../../electron/core/log/stderr-events.js';

function setup() {
  let clock = 1_000_000;
  const events: HubEventInput[] = [];
  const stderr = new StderrEvents({ emit: (e) => events.push(e), burstLines: 100, linesPerSecond: 10, now: () => clock });
  const lines = (server: string) => events.filter((e) => e.type === 'upstream.stderr' && e.server === server && e.level === 'debug');
  const reports = (server: string) => events.filter((e) => e.type === 'upstream.stderr' && e.server === server && e.level === 'warn');
  return { stderr, events, lines, reports, advance: (ms: number) => (clock += ms) };
}

describe('StderrEvents', () => {
  it('lets a burst through, then at most the rate, and reports the rest as one count', () => {
    const { stderr, lines, reports, advance } = setup();
    for (let i = 0; i < 50_000; i++) stderr.line('flood', `line ${i}`);
    expect(lines('flood')).toHaveLength(100);
    expect(reports('flood')).toHaveLength(0);
    // A second later: ten more lines may pass; the first is preceded by the count of those skipped.
    advance(1000);
    for (let i = 0; i < 50_000; i++) stderr.line('flood', `later ${i}`);
    expect(lines('flood')).toHaveLength(110);
    const [report] = reports('flood');
    expect(report).toMatchObject({ line: expect.stringContaining('49,900 lines of this server') });
    stderr.flush();
    expect(reports('flood')[1]).toMatchObject({ line: expect.stringContaining('49,990 lines') });
  });

  it('counts every line: shown plus reported equals written', () => {
    const { stderr, events, advance } = setup();
    let written = 0;
    for (let second = 0; second < 30; second++) {
      for (let i = 0; i < 1000; i++, written++) stderr.line('flood', 'x');
      advance(1000);
    }
    stderr.flush();
    const shown = events.filter((e) => e.level === 'debug').length;
    const skipped = events
      .filter((e) => e.level === 'warn')
      .reduce((sum, e) => sum + Number(/([\d,]+) lines? of/.exec((e as { line: string }).line)![1].replace(/,/g, '')), 0);
    expect(shown).toBe(100 + 29 * 10);
    expect(shown + skipped).toBe(written);
  });

  it('limits each server on its own: a quiet server keeps its lines while another floods', () => {
    const { stderr, lines, reports } = setup();
    for (let i = 0; i < 10_000; i++) stderr.line('flood', 'x');
    for (let i = 0; i < 20; i++) stderr.line('quiet', `q${i}`);
    expect(lines('quiet')).toHaveLength(20);
    expect(reports('quiet')).toHaveLength(0);
    expect(lines('flood')).toHaveLength(100);
  });

  it('reports skipped lines on its own when the server goes quiet', async () => {
    let report: (e: HubEventInput) => void = () => {};
    const reported = new Promise<HubEventInput>((resolve) => (report = resolve));
    const stderr = new StderrEvents({ emit: (e) => e.level === 'warn' && report(e), burstLines: 100, now: () => 0 });
    for (let i = 0; i < 150; i++) stderr.line('flood', 'x');
    expect(await reported).toMatchObject({ server: 'flood', line: expect.stringContaining('50 lines') });
  });
});

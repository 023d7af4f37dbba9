import { afterEach, describe, expect, it } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/svelte';
import SavingsView from '../../renderer/src/views/SavingsView.svelte';
import { SavingsState } from '../../renderer/src/lib/savings.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

function setup(seed?: (fake: FakeBackend) => void) {
  const fake = new FakeBackend();
  seed?.(fake);
  const savings = new SavingsState(fake);
  stop = savings.start();
  render(SavingsView, { savings });
  return { fake, savings };
}

describe('Savings', () => {
  it('shows totals for today, 7 days and all time from savings.report, with breakdowns', async () => {
    const { fake } = setup((f) => {
      const old = new Date(Date.now() - 30 * 86_400_000).toISOString();
      f.ledger.call('files', 'read_file', 100_000, 1_000);
      f.ledger.call('memory', 'search_nodes', 2_000, 2_000, { client: 'cursor' });
      f.ledger.call('files', 'read_file', 50_000, 1_000, { time: old });
      f.ledger.list(12_000, 3_000);
    });
    const today = await screen.findByRole('region', { name: 'Today' });
    expect(within(today).getByText('99K')).toBeTruthy();
    expect(within(today).getByText(/3K delivered of 102K produced · 2 calls/)).toBeTruthy();
    expect(within(today).getByText(/Tool lists: 9K tokens saved over 1 list sent/)).toBeTruthy();
    const all = screen.getByRole('region', { name: 'All time' });
    expect(within(all).getByText('148K')).toBeTruthy();
    expect(within(all).getByText(/3 calls/)).toBeTruthy();
    expect(screen.getByLabelText('Tokens saved on tool lists').textContent).toContain('9,000');

    const byTool = screen.getByRole('region', { name: 'By tool' });
    const first = within(byTool).getAllByRole('row')[1];
    expect(first.textContent).toContain('files · read_file');
    expect(first.textContent).toContain('148K');
    const byClient = screen.getByRole('region', { name: 'By client' });
    expect(within(byClient).getByText('cursor')).toBeTruthy();
    expect(within(byClient).getByText('claude-ai')).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Tokens produced and delivered per day' })).toBeTruthy();

    // A finished call refreshes the report.
    fake.ledger.call('files', 'read_file', 10_000, 500);
    fake.emit({
      type: 'call.finished',
      level: 'info',
      callId: 'x',
      server: 'files',
      tool: 'read_file',
      exposedName: 'files__read_file',
      durationMs: 3,
      isError: false,
      action: 'spill',
      bytesUpstream: 40_000,
      bytesDelivered: 2_000,
    });
    await waitFor(() => expect(within(screen.getByRole('region', { name: 'Today' })).getByText(/3 calls/)).toBeTruthy());
  });

  it('counts a call the ledger records after its call.finished event, without Refresh (issue 14, item 3)', async () => {
    const fake = new FakeBackend();
    fake.ledger.call('files', 'read_file', 10_000, 500);
    // The timers the state waits on, run by the test: no waiting on the clock.
    const timers: Array<() => void> = [];
    const savings = new SavingsState(fake, { setTimeout: (fn) => timers.push(fn), clearTimeout: () => {} });
    stop = savings.start();
    render(SavingsView, { savings });
    const today = await screen.findByRole('region', { name: 'Today' });
    await waitFor(() => expect(within(today).getByText(/· 1 call\b/)).toBeTruthy());

    // As the hub does it: the event goes out with the answer, the ledger records the call just after.
    fake.emit({
      type: 'call.finished',
      level: 'info',
      callId: 'late',
      server: 'files',
      tool: 'read_file',
      exposedName: 'files__read_file',
      durationMs: 3,
      isError: false,
      action: 'spill',
      bytesUpstream: 40_000,
      bytesDelivered: 2_000,
    });
    await waitFor(() => expect(timers).toHaveLength(1));
    fake.ledger.call('files', 'read_file', 10_000, 500);
    timers.shift()!();
    await waitFor(() => expect(within(today).getByText(/· 2 calls/)).toBeTruthy());
    // Counted: nothing more is asked for.
    expect(timers).toHaveLength(0);
  });

  it('shows a negative saving as more delivered than produced, never as 0 (issue 14, item 5)', async () => {
    setup((f) => f.ledger.call('files', 'read_file', 1_079, 1_232));
    const today = await screen.findByRole('region', { name: 'Today' });
    const big = within(today).getByText('more tokens delivered than produced').parentElement!;
    expect(big.textContent).toMatch(/^\s*153\b/);
    expect(within(today).getByRole('meter').getAttribute('aria-valuenow')).toBe('100');
    const row = within(screen.getByRole('region', { name: 'By tool' })).getAllByRole('row')[1];
    expect(row.textContent).toContain('153 added');
    expect(row.textContent).not.toMatch(/-153|%/);
  });

  it('a result kept yesterday and read back today: no "-3.2K tokens saved", no "(0%)"', async () => {
    setup((f) => {
      f.ledger.call('files', 'read_file', 40_000, 1_000, { time: new Date(Date.now() - 86_400_000).toISOString() });
      f.ledger.call('spillway', 'read_result', 0, 3_200);
    });
    const today = await screen.findByRole('region', { name: 'Today' });
    expect(today.textContent).not.toMatch(/-3\.2K/);
    expect(within(today).queryByText('tokens saved')).toBeNull();
    const big = within(today).getByText('more tokens delivered than produced').parentElement!;
    expect(big.textContent).toMatch(/^\s*3\.2K\b/);
    expect(big.title).toMatch(/reads back from a kept result counts as delivered on the day it is read/);
    // All time still saved: the card says so as before.
    expect(within(screen.getByRole('region', { name: 'All time' })).getByText('tokens saved')).toBeTruthy();

    const rows = within(screen.getByRole('region', { name: 'By tool' })).getAllByRole('row');
    const readBack = rows.find((r) => r.textContent?.includes('spillway · read_result'))!;
    const saved = readBack.querySelectorAll('td')[3];
    expect(saved.textContent).toBe('3.2K added');
    expect(saved.title).toBe('3,200 more tokens delivered than produced');
    const kept = rows.find((r) => r.textContent?.includes('files · read_file'))!;
    expect(kept.querySelectorAll('td')[3].textContent).toBe('39K (98%)');
  });

  it('a breakdown row where nothing was produced and nothing delivered shows no percentage', async () => {
    setup((f) => f.ledger.call('files', 'read_file', 0, 0, { action: 'error' }));
    const byTool = await screen.findByRole('region', { name: 'By tool' });
    const row = (await within(byTool).findAllByRole('row'))[1];
    expect(row.querySelectorAll('td')[3].textContent).toBe('0');
  });

  it('follows a read of a kept result: its call.counted (no call.finished) reloads the report', async () => {
    const fake = new FakeBackend();
    fake.ledger.call('files', 'read_file', 40_000, 1_000);
    const timers: Array<() => void> = [];
    const savings = new SavingsState(fake, { setTimeout: (fn) => timers.push(fn), clearTimeout: () => {} });
    stop = savings.start();
    render(SavingsView, { savings });
    const all = await screen.findByRole('region', { name: 'All time' });
    await waitFor(() => expect(within(all).getByText(/· 1 call\b/)).toBeTruthy());
    expect(within(all).getByText('39K')).toBeTruthy();

    // As the hub does it: the read is in the ledger when its event goes out.
    fake.ledger.call('spillway', 'read_result', 0, 3_200);
    fake.emit({
      type: 'call.counted',
      level: 'debug',
      callId: 'read-1',
      server: 'spillway',
      tool: 'read_result',
      exposedName: 'spillway__read_result',
      tokensUpstream: 0,
      tokensDelivered: 3_200,
      tokensEstimated: false,
      readBack: true,
    });
    await waitFor(() => expect(within(all).getByText(/· 2 calls/)).toBeTruthy());
    expect(within(all).getByText('35.8K')).toBeTruthy();
    // The read was owed and is counted: nothing more is asked for.
    expect(timers).toHaveLength(0);
  });

  // A read-back and an answer dispatch makes itself (list, search, describe) have no call.finished: each
  // owes its own call, and never stands in for the record of another call still being counted.
  it.each([
    { what: 'a read-back', tool: 'read_result', delivered: 3_200, flag: { readBack: true } as const },
    { what: 'a dispatch answer', tool: 'dispatch', delivered: 400, flag: { dispatchAnswer: true } as const },
  ])('$what recorded while another call is still being counted does not stand in for that call', async ({ tool, delivered, flag }) => {
    const fake = new FakeBackend();
    fake.ledger.call('files', 'read_file', 40_000, 1_000);
    // The timers the state waits on, run by the test; a cancelled one is gone.
    const timers = new Set<() => void>();
    const savings = new SavingsState(fake, {
      setTimeout: (fn) => {
        timers.add(fn);
        return fn;
      },
      clearTimeout: (fn) => timers.delete(fn as () => void),
    });
    stop = savings.start();
    render(SavingsView, { savings });
    const all = await screen.findByRole('region', { name: 'All time' });
    await waitFor(() => expect(within(all).getByText(/· 1 call\b/)).toBeTruthy());

    // A call finished; its record is not in yet (its tokens are being counted) when the other record lands.
    fake.emit({
      type: 'call.finished',
      level: 'info',
      callId: 'slow',
      server: 'files',
      tool: 'read_file',
      exposedName: 'files__read_file',
      durationMs: 3,
      isError: false,
      action: 'spill',
      bytesUpstream: 40_000,
      bytesDelivered: 2_000,
    });
    await waitFor(() => expect(timers.size).toBe(1));
    fake.ledger.call('spillway', tool, 0, delivered);
    fake.emit({
      type: 'call.counted',
      level: 'debug',
      callId: `${tool}-1`,
      server: 'spillway',
      tool,
      exposedName: `spillway__${tool}`,
      tokensUpstream: 0,
      tokensDelivered: delivered,
      tokensEstimated: false,
      ...flag,
    });
    await waitFor(() => expect(within(all).getByText(/· 2 calls/)).toBeTruthy());
    // The finished call is still owed: the report is asked for again, and then holds it.
    expect(timers.size).toBe(1);
    fake.ledger.call('files', 'read_file', 10_000, 500);
    for (const fire of [...timers]) {
      timers.delete(fire);
      fire();
    }
    await waitFor(() => expect(within(all).getByText(/· 3 calls/)).toBeTruthy());
  });

  it('follows a tools/list record as it lands (its call.counted, `listed`), owing no call', async () => {
    const fake = new FakeBackend();
    fake.ledger.call('files', 'read_file', 40_000, 1_000);
    const timers: Array<() => void> = [];
    const savings = new SavingsState(fake, { setTimeout: (fn) => timers.push(fn), clearTimeout: () => {} });
    stop = savings.start();
    render(SavingsView, { savings });
    const today = await screen.findByRole('region', { name: 'Today' });
    await waitFor(() => expect(within(today).getByText(/· 1 call\b/)).toBeTruthy());
    expect(within(today).getByText(/Tool lists: 0 tokens saved over 0 lists sent/)).toBeTruthy();

    // As the hub does it: the list is in the ledger when its event goes out, after the list was answered.
    fake.ledger.list(12_000, 3_000);
    fake.emit({
      type: 'call.counted',
      level: 'debug',
      callId: 'list-1',
      server: 'spillway',
      tool: 'tools/list',
      exposedName: 'tools/list',
      tokensUpstream: 12_000,
      tokensDelivered: 3_000,
      tokensEstimated: false,
      listed: true,
    });
    await waitFor(() => expect(within(today).getByText(/Tool lists: 9K tokens saved over 1 list sent/)).toBeTruthy());
    expect(within(today).getByText(/· 1 call\b/)).toBeTruthy();
    // No call was owed: nothing more is asked for.
    expect(timers).toHaveLength(0);
  });

  it('tool lists that cost more than they saved say "added" on the cards, never "-4.4K tokens saved"', async () => {
    setup((f) => {
      for (let i = 0; i < 9; i++) f.ledger.list(1_000, 1_492);
    });
    for (const name of ['Today', 'Last 7 days', 'All time']) {
      const card = await screen.findByRole('region', { name });
      expect(within(card).getByText("Tool lists: 4.4K tokens added by Spillway's own tools over 9 lists sent")).toBeTruthy();
      expect(card.textContent).not.toMatch(/-4\.4K/);
    }
    expect(screen.getByLabelText('Tokens saved on tool lists').textContent).toContain('added 4,428');
  });

  it('says savings are not available yet when the hub does not offer savings.report', async () => {
    const { savings } = setup((f) => f.withhold('savings'));
    await waitFor(() => expect(savings.available).toBe(false));
    expect(screen.getByText('Savings are not available yet')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows an error from the ledger where the report would be', async () => {
    setup((f) => f.failNext('savings.report', { code: 'internal', message: 'the ledger file is unreadable' }));
    expect((await screen.findByRole('alert')).textContent).toBe('the ledger file is unreadable');
  });
});

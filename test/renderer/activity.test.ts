import { describe, expect, it, afterEach } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ActivityView from '../../renderer/src/views/ActivityView.svelte';
import { ActivityLog } from '../../renderer/src/lib/activity.svelte.js';
import { SpillPreviewState } from '../../renderer/src/lib/spill-preview.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

function setup() {
  const fake = new FakeBackend();
  const log = new ActivityLog(fake, { schedule: (flush) => queueMicrotask(flush) });
  stop = log.start();
  render(ActivityView, { log, spill: new SpillPreviewState(fake), testHeight: 600 });
  return { fake, log };
}

/** The log's rows only (filter options carry the same names). */
const logRegion = () => within(screen.getByRole('region', { name: 'Live log' }));

function finished(server: string, tool: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'call.finished' as const,
    level: 'info' as const,
    callId: `${server}-${tool}-${Math.random()}`,
    client: 'claude-ai',
    server,
    tool,
    exposedName: `${server}__${tool}`,
    durationMs: 12,
    isError: false,
    action: 'spill' as const,
    bytesUpstream: 400_000,
    bytesDelivered: 4_000,
    tokensUpstream: 100_000,
    tokensDelivered: 1_000,
    handle: 'h_abc123',
    ...extra,
  };
}

describe('Activity', () => {
  it('shows Info and up by default, debug details on request, and says a server failed in plain words (issue 14, items 7 and 11)', async () => {
    const { fake, log } = setup();
    await waitFor(() => expect(log.loading).toBe(false));
    fake.emit({ type: 'log', level: 'debug', message: 'roots/list failed: Method not found' });
    fake.emit({ type: 'upstream.status', level: 'error', server: 'weather', status: 'error', error: 'exited with code 1' });
    await logRegion().findByText('weather failed: exited with code 1');
    expect(logRegion().queryByText(/roots\/list/)).toBeNull();
    expect(logRegion().queryByText(/is error/)).toBeNull();
    fake.emit({ type: 'catalog.changed', level: 'info', tools: 1, resources: 0, prompts: 2 });
    expect(await logRegion().findByText('Tools changed: 1 tool, 2 prompts')).toBeTruthy();
    expect(screen.getByText('2 events')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Clear filters' })).toBeNull();

    await fireEvent.change(screen.getByLabelText('Level'), { target: { value: '' } });
    expect(await logRegion().findByText(/roots\/list failed/)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(logRegion().queryByText(/roots\/list/)).toBeNull());
  });

  it('shows the history first, then events as they are pushed', async () => {
    const fake = new FakeBackend();
    fake.emit({ type: 'log', level: 'info', message: 'hub started' });
    const log = new ActivityLog(fake, { schedule: (flush) => queueMicrotask(flush) });
    stop = log.start();
    render(ActivityView, { log, spill: new SpillPreviewState(fake), testHeight: 600 });
    expect(await logRegion().findByText('hub started')).toBeTruthy();

    fake.emit(finished('files', 'read_file'));
    const row = await logRegion().findByText(/files__read_file spilled/);
    expect(row.textContent).toContain('100K → 1K tokens');
    expect(screen.getByText('2 events')).toBeTruthy();
  });

  it('filters by server and by text', async () => {
    const { fake, log } = setup();
    await waitFor(() => expect(log.loading).toBe(false));
    fake.emit(finished('files', 'read_file'));
    fake.emit(finished('memory', 'search_nodes'));
    fake.emit({ type: 'upstream.stderr', level: 'warn', server: 'memory', line: 'disk almost full' });
    await logRegion().findByText(/memory__search_nodes/);

    await fireEvent.change(screen.getByLabelText('Server'), { target: { value: 'files' } });
    await waitFor(() => expect(logRegion().queryByText(/memory__search_nodes/)).toBeNull());
    expect(logRegion().getByText(/files__read_file/)).toBeTruthy();
    expect(screen.getByText('1 of 3 events')).toBeTruthy();

    await fireEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    await fireEvent.input(screen.getByLabelText('Text'), { target: { value: 'disk almost' } });
    await waitFor(() => expect(logRegion().queryByText(/files__read_file/)).toBeNull());
    expect(logRegion().getByText('memory: disk almost full')).toBeTruthy();

    await fireEvent.input(screen.getByLabelText('Text'), { target: { value: 'nothing like this' } });
    expect(await screen.findByText('No events match these filters.')).toBeTruthy();
  });

  it('shows one row per finished call and opens it to its details', async () => {
    const { fake, log } = setup();
    await waitFor(() => expect(log.loading).toBe(false));
    fake.emit({
      type: 'call.started',
      level: 'info',
      callId: 'c1',
      server: 'files',
      tool: 'read_file',
      exposedName: 'files__read_file',
      argumentsPreview: '{"path":"/var/log/syslog"}',
    });
    await logRegion().findByText(/files__read_file called/);
    fake.emit(finished('files', 'read_file', { callId: 'c1' }));
    await waitFor(() => expect(logRegion().queryByText(/files__read_file called/)).toBeNull());

    // jsdom has no layout, so virtua keeps re-keyed rows visibility:hidden; click by text instead of role.
    await fireEvent.click(await logRegion().findByText(/files__read_file spilled/));
    const details = screen.getByRole('region', { name: 'files__read_file' });
    expect(within(details).getByText('{"path":"/var/log/syslog"}')).toBeTruthy();
    expect(within(details).getByText('h_abc123')).toBeTruthy();
    expect(within(details).getByText(/99% kept out/)).toBeTruthy();
  });

  it('counts rows against rows: a call folded into one row is not "filtered out" when only Level is changed', async () => {
    const { fake, log } = setup();
    await waitFor(() => expect(log.loading).toBe(false));
    const started = (callId: string) => ({
      type: 'call.started' as const,
      level: 'info' as const,
      callId,
      server: 'files',
      tool: 'read_file',
      exposedName: 'files__read_file',
    });
    fake.emit(started('k1'));
    fake.emit(finished('files', 'read_file', { callId: 'k1' }));
    fake.emit(started('k2'));
    fake.emit(finished('files', 'read_file', { callId: 'k2' }));
    fake.emit({ type: 'log', level: 'debug', message: 'roots/list failed: Method not found' });
    await waitFor(() => expect(screen.getByText('2 events')).toBeTruthy());

    await fireEvent.change(screen.getByLabelText('Level'), { target: { value: '' } });
    await logRegion().findByText(/roots\/list failed/);
    // Five events, three rows, all shown: never "3 of 5 events".
    expect(screen.getByText('3 events')).toBeTruthy();
    await fireEvent.change(screen.getByLabelText('Level'), { target: { value: 'warn' } });
    expect(await screen.findByText('0 of 3 events')).toBeTruthy();
  });

  it('opens a failed call to the reason the client was told, or says none was recorded', async () => {
    const { fake, log } = setup();
    await waitFor(() => expect(log.loading).toBe(false));
    const failed = { isError: true, action: 'pass', handle: undefined, level: 'warn' };
    fake.emit(finished('weather', 'forecast', { ...failed, callId: 'f1', error: 'No forecast for Oslo: the key api_key=*** was refused.' }));
    fake.emit(finished('weather', 'silent', { ...failed, callId: 'f2' }));

    await fireEvent.click(await logRegion().findByText(/weather__forecast failed/));
    let details = screen.getByRole('region', { name: 'weather__forecast' });
    expect(within(details).getByText('Failed: No forecast for Oslo: the key api_key=*** was refused.')).toBeTruthy();

    await fireEvent.click(await logRegion().findByText(/weather__silent failed/));
    details = screen.getByRole('region', { name: 'weather__silent' });
    expect(within(details).getByText('Failed (no reason was recorded)')).toBeTruthy();
  });

  it('opens a spilled call to its spilled original, read by its handle', async () => {
    const { fake, log } = setup();
    fake.spill.add('h_big', '{"rows":[' + '"line",'.repeat(50) + '"end"]}', { lines: 1 });
    await waitFor(() => expect(log.loading).toBe(false));
    fake.emit(finished('files', 'read_file', { callId: 'c2', handle: 'h_big' }));
    await fireEvent.click(await logRegion().findByText(/files__read_file spilled/));

    const details = screen.getByRole('region', { name: 'files__read_file' });
    const original = await within(details).findByLabelText('Spilled original');
    expect(original.textContent).toContain('"rows":["line"');
    expect(fake.callsOf('spill.preview')).toEqual([{ handle: 'h_big', maxTokens: 2000 }]);
  });

  it('says in the details that a spilled original is no longer kept, and offers no reading it again', async () => {
    const { fake, log } = setup();
    fake.spill.add('h_gone', 'the whole result');
    await fake.call('spill.clear', {});
    await waitFor(() => expect(log.loading).toBe(false));
    fake.emit(finished('files', 'read_file', { callId: 'c3', handle: 'h_gone' }));
    await fireEvent.click(await logRegion().findByText(/files__read_file spilled/));
    const details = screen.getByRole('region', { name: 'files__read_file' });
    expect((await within(details).findByTestId('original-gone')).textContent?.replace(/\s+/g, ' ')).toMatch(
      /no longer keeps this result: it was deleted .* run the tool again\./,
    );
    expect(within(details).getByText('Was kept as')).toBeTruthy();
    expect(within(details).queryByText('Kept as')).toBeNull();
    expect(within(details).queryByText(/the name the model uses to read the rest/)).toBeNull();
    expect(within(details).queryByRole('button', { name: 'Read the spilled original again' })).toBeNull();
    expect(within(details).queryByRole('alert')).toBeNull();
  });

  it('offers reading a spilled original again when the hub did not answer', async () => {
    const { fake, log } = setup();
    fake.spill.add('h_later', 'the whole result');
    await waitFor(() => expect(log.loading).toBe(false));
    fake.failNext('spill.preview', { code: 'unavailable', message: 'Cannot reach Spillway.' });
    fake.emit(finished('files', 'read_file', { callId: 'c4', handle: 'h_later' }));
    await fireEvent.click(await logRegion().findByText(/files__read_file spilled/));
    const details = screen.getByRole('region', { name: 'files__read_file' });
    expect((await within(details).findByRole('alert')).textContent).toBe('Cannot reach Spillway.');
    await fireEvent.click(within(details).getByRole('button', { name: 'Read the spilled original again' }));
    expect((await within(details).findByLabelText('Spilled original')).textContent).toContain('the whole result');
  });

  it('gives the focus back to the row the details were opened from, after Close and after Escape (WCAG 2.4.3)', async () => {
    const { fake, log } = setup();
    await waitFor(() => expect(log.loading).toBe(false));
    fake.emit(finished('files', 'read_file', { callId: 'd1' }));
    fake.emit(finished('memory', 'search_nodes', { callId: 'd2' }));
    const row = (await logRegion().findByText(/memory__search_nodes spilled/)).closest('button')!;
    await fireEvent.click(row);
    await fireEvent.click(screen.getByRole('button', { name: 'Close call details' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'memory__search_nodes' })).toBeNull());
    await waitFor(() =>
      expect(document.activeElement).toBe(
        logRegion()
          .getByText(/memory__search_nodes spilled/)
          .closest('button'),
      ),
    );

    await fireEvent.click(
      logRegion()
        .getByText(/files__read_file spilled/)
        .closest('button')!,
    );
    await fireEvent.keyDown(screen.getByRole('button', { name: 'Close call details' }), { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'files__read_file' })).toBeNull());
    await waitFor(() =>
      expect(document.activeElement).toBe(
        logRegion()
          .getByText(/files__read_file spilled/)
          .closest('button'),
      ),
    );
  });

  it('keeps only the newest events when the ring is full', async () => {
    const fake = new FakeBackend();
    const log = new ActivityLog(fake, { capacity: 3, schedule: (flush) => queueMicrotask(flush) });
    stop = log.start();
    await waitFor(() => expect(log.loading).toBe(false));
    for (let i = 0; i < 5; i++) fake.emit({ type: 'log', level: 'info', message: `line ${i}` });
    await waitFor(() => expect(log.events.map((e) => (e.type === 'log' ? e.message : ''))).toEqual(['line 2', 'line 3', 'line 4']));
  });
});

/**
 * The form checks the headers it sends as the hub does (audit s16 fixes, items 1 and 2): a header loaded
 * for editing and left as it is is not checked (one stored before the check, or written by hand, must not
 * stop an edit of another field), a changed one is, and a new server's value of bullets (a mask with
 * nothing stored behind it) is refused, naming the header.
 */
import { describe, expect, it } from 'vitest';
import { ServerDraft } from '../../renderer/src/lib/server-draft.svelte.js';

const STORED = { type: 'http', url: 'https://old.example.com/mcp', headers: { 'X Api Key': '***' }, enabled: true } as const;

describe('Server form: headers as stored', () => {
  it('saves an edit that leaves a stored header as it is', () => {
    const draft = new ServerDraft('old', STORED, 'r1');
    draft.prefix = false;
    expect(draft.validate([])?.config).toMatchObject({ headers: { 'X Api Key': '***' }, prefix: false });
    expect(draft.problem).toBeUndefined();
  });

  it('refuses the stored header once its value is changed, naming it', () => {
    const draft = new ServerDraft('old', STORED, 'r1');
    draft.headers = [{ key: 'X Api Key', value: 'new', masked: true }];
    expect(draft.validate([])).toBeUndefined();
    expect(draft.problem).toMatchObject({ field: 'headers.X Api Key', message: expect.stringContaining('cannot have a space in its name') });
  });

  it('refuses a value of bullets on a new server, naming the header', () => {
    const draft = new ServerDraft();
    draft.name = 'n';
    draft.kind = 'http';
    draft.url = 'https://example.com/mcp';
    draft.headers = [{ key: 'X-Api-Key', value: '••••', masked: true }];
    expect(draft.validate([])).toBeUndefined();
    expect(draft.problem).toEqual({
      field: 'headers.X-Api-Key',
      message: 'The header "X-Api-Key" shows a hidden value (••••) and no value is kept for it: type its value.',
    });
  });
});

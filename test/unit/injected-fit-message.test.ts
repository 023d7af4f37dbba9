/**
 * A changed tool's misfit is shown in Tools and the log and told to the model: for every kind of rule the
 * schema check knows, the message says what the tool wants and never quotes the hidden value.
 */
import { describe, expect, it } from 'vitest';
import { injectedMisfit } from '../../electron/core/policy/injected-fit.js';

const SECRET = 'sk-live-9f8e7d6c5b4a';
const tool = (property: Record<string, unknown>) => ({ name: 'send', inputSchema: { type: 'object', properties: { apiKey: property } } });

describe('injectedMisfit', () => {
  it.each([
    ['a type', { type: 'integer' }, /must be a whole number, as the tool expects$/],
    ['an enum', { type: 'string', enum: ['a', 'b'] }, /must be one of "a", "b", as the tool expects$/],
    ['a pattern', { type: 'string', pattern: '^[0-9]+$' }, /must match the pattern \^\[0-9\]\+\$, as the tool expects$/],
    ['a length', { type: 'string', maxLength: 4 }, /must be at most 4 characters long, as the tool expects$/],
    ['a nested field', { type: 'object', required: ['k'] }, /must be a JSON object, as the tool expects$/],
  ])('says what %s wants without the value', (_kind, property, said) => {
    const misfit = injectedMisfit('mail', tool(property), { hiddenParams: { apiKey: SECRET } });
    expect(misfit?.field).toBe('tools.mail.send.hiddenParams.apiKey');
    expect(misfit?.parameter).toBe('apiKey');
    expect(misfit?.message).toMatch(/^The hidden value of "apiKey"/);
    expect(misfit?.message).toMatch(said);
    expect(misfit?.message).not.toContain(SECRET);
  });

  it('names a parameter the tool no longer has, as a sentence', () => {
    const misfit = injectedMisfit(
      'mail',
      { name: 'send', inputSchema: { type: 'object', properties: { to: { type: 'string' } } } },
      { hiddenParams: { apiKey: SECRET } },
    );
    expect(misfit?.message).toBe('The tool has no parameter "apiKey" (it has: to)');
  });

  it('is undefined when every value fits', () => {
    expect(injectedMisfit('mail', tool({ type: 'string' }), { hiddenParams: { apiKey: SECRET } })).toBeUndefined();
  });
});

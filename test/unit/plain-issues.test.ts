/** Issue 14, item 6: a refused value is said as a sentence naming the setting, not in zod's words. */
import { describe, expect, it } from 'vitest';
import { ServerConfigSchema, SettingsPatchSchema, describeZodError } from '../../shared/config.js';
import { policyApi } from '../../shared/api-policy.js';
import { validatePolicies } from '../../shared/policy.js';
import { fieldLabel } from '../../shared/plain-issues.js';
import { previewWarning } from '../../shared/spill-advice.js';

describe('describeZodError: settings', () => {
  const cases: Array<[string, unknown, string, string]> = [
    ['threshold below 1', { spill: { thresholdTokens: 0 } }, 'spill.thresholdTokens', 'The spill threshold must be at least 1 token.'],
    ['threshold not whole', { spill: { thresholdTokens: 1.5 } }, 'spill.thresholdTokens', 'The spill threshold must be a whole number of tokens.'],
    ['threshold as text', { spill: { thresholdTokens: 'lots' } }, 'spill.thresholdTokens', 'The spill threshold must be a number of tokens.'],
    ['preview too small', { spill: { previewTokens: 10 } }, 'spill.previewTokens', 'The preview must be at least 50 tokens.'],
    ['preview too big', { spill: { previewTokens: 200_000 } }, 'spill.previewTokens', 'The preview must be at most 100,000 tokens.'],
    ['an unknown action', { spill: { action: 'zip' } }, 'spill.action', 'The action must be one of: spill, truncate, pass.'],
    ['a misspelt setting', { spil: {} }, '(root)', '"spil" is not a known setting here: check the spelling, or remove it.'],
  ];
  it.each(cases)('%s', (_name, patch, field, message) => {
    const parsed = SettingsPatchSchema.safeParse(patch);
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(describeZodError(parsed.error)).toEqual({ field, message });
  });
});

describe('describeZodError: servers', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['an empty command', { type: 'stdio', command: '' }, /^The command /],
    ['a URL that is not one', { type: 'http', url: 'not a url' }, /^The URL /],
  ];
  it.each(cases)('%s', (_name, config, message) => {
    const parsed = ServerConfigSchema.safeParse(config);
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const described = describeZodError(parsed.error, 'config');
    expect(described.message).toMatch(message);
    expect(described.message).not.toMatch(/Too small|Invalid input|expected/);
    expect(described.message.endsWith('.')).toBe(true);
  });
});

describe('fieldLabel', () => {
  it.each([
    [['spill', 'thresholdTokens'], 'spill threshold'],
    [['tools', 'fs', 'read_file', 'cacheTtlSeconds'], 'cache time'],
    [['env', 'API_KEY'], 'environment variables'],
    [['servers', 'fs', 'hiden'], 'hiden'],
    // A parameter is named by the user's tool, never read as a setting of the same name.
    [['tools', 'fs', 'read_file', 'hiddenParams', 'message'], 'hidden parameter "message"'],
    [['policy', 'paramOverrides', 'timeoutMs'], 'override of "timeoutMs"'],
    // A header by its name; a server whose id is "headers" is not read as one.
    [['config', 'headers', 'X-Api-Key'], 'header "X-Api-Key"'],
    [['servers', 'fs', 'headers', 'url'], 'header "url"'],
    [['servers', 'headers', 'url'], 'URL'],
    [[], 'value'],
  ])('%j → %s', (path, label) => {
    expect(fieldLabel(path)).toBe(label);
  });
});

describe('a hidden parameter without a value', () => {
  const sentence = 'The hidden parameter "message" needs a value to inject: clients no longer send it, so Spillway sends this value in its place.';

  it('is one complete sentence naming the parameter (not "The message a hidden parameter needs…")', () => {
    const known = { servers: { everything: { tools: ['echo'] } } };
    const result = validatePolicies({ tools: { everything: { echo: { hiddenParams: { message: null } } } } }, known);
    expect(result).toEqual({
      ok: false,
      field: 'tools.everything.echo.hiddenParams.message',
      message: `tools.everything.echo.hiddenParams.message: ${sentence}`,
    });
  });

  it('reads the same when the request itself is refused (policies.setTool)', () => {
    const parsed = policyApi['policies.setTool'].req.safeParse({ server: 'everything', tool: 'echo', policy: { hiddenParams: { message: null } } });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(describeZodError(parsed.error)).toEqual({ field: 'policy.hiddenParams.message', message: sentence });
  });
});

describe('a preview not below its threshold', () => {
  it.each([
    [100, 5000, true],
    [1000, 1000, true],
    [10_000, 1000, false],
    [null, 5000, false],
    [undefined, 5000, false],
    [100, undefined, false],
  ])('threshold %s, preview %s → warned: %s', (threshold, preview, warned) => {
    const message = previewWarning(threshold, preview);
    expect(message !== undefined).toBe(warned);
    if (message) expect(message).toMatch(/lower the preview or raise the threshold\.$/);
  });

  it('is a warning on valid policies, by field', () => {
    const known = { servers: { fs: { tools: ['read_file'] } } };
    const result = validatePolicies({ servers: { fs: { thresholdTokens: 100, previewTokens: 5000 } }, tools: {} }, known);
    expect(result).toMatchObject({
      ok: true,
      warnings: [{ field: 'servers.fs.previewTokens', message: expect.stringMatching(/^The preview \(5,000 tokens\)/) }],
    });
    expect(validatePolicies({ servers: { fs: { thresholdTokens: 5000, previewTokens: 100 } }, tools: {} }, known)).not.toHaveProperty('warnings');
  });
});

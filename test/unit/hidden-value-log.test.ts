/**
 * Which hidden parameter values the event log masks as secrets: a value under a secret-looking name or
 * one that looks like a token, never a plain word (`units: "metric"` would blank "metric" in every line).
 */
import { expect, it } from 'vitest';
import { SecretValues } from '../../electron/core/log/secret-values.js';
import { hiddenParamTexts } from '../../electron/core/policy/policy-runtime.js';

const tracked = (hiddenParams: Record<string, unknown>) => {
  const config = { servers: {}, policies: { tools: { srv: { tool: { hiddenParams } } } } };
  const secrets = new SecretValues();
  secrets.track(
    'hidden parameters',
    () => config,
    (c) => hiddenParamTexts(c as never),
  );
  return secrets;
};

it('a plain hidden value ("metric", "github") does not blank that word in every log line', () => {
  const config = {
    servers: {},
    policies: { tools: { weather: { forecast: { hiddenParams: { units: 'metric' } } }, gh: { search: { hiddenParams: { provider: 'github' } } } } },
  };
  const secrets = new SecretValues();
  secrets.track(
    'hidden parameters',
    () => config,
    (c) => hiddenParamTexts(c as never),
  );
  const line = 'Server "github" failed to start: convert {"system":"metric"}';
  expect(secrets.mask(line)).toBe(line);
});

it('masks a value under a secret-looking name, even a plain word', () => {
  const secrets = tracked({ apiKey: 'opensesame', auth: { password: 'correcthorse' } });
  expect(secrets.mask('refused opensesame and correcthorse')).not.toMatch(/opensesame|correcthorse/);
});

it('masks a token-looking value under a plain name', () => {
  const secrets = tracked({ account: 'acct-7731-blue', owner: 'metric' });
  expect(secrets.mask('no account acct-7731-blue (metric)')).toBe('no account *** (metric)');
});

/**
 * restoreMaskedSecrets against maskServerSecrets: whatever a list masks comes back as stored when the
 * masked config is sent back unchanged (the on/off switch, the edit form saved as it is); a word edited
 * around its mask keeps the secret; a value typed over the mask is taken.
 */
import { describe, expect, it } from 'vitest';
import { SECRET_REF, ServerConfigSchema, type ServerConfig } from '../../shared/config.js';
import { ControlError } from '../../electron/core/control/control-error.js';
import { maskServerSecrets, restoreMaskedSecrets } from '../../electron/core/control/server-secrets.js';
import { movedSecretRef } from '../../electron/core/secrets/server-secret-refs.js';

const stdio = (args: string[], extra: Record<string, unknown> = {}): ServerConfig =>
  ServerConfigSchema.parse({ type: 'stdio', command: 'npx', args, ...extra });
const http = (url: string, extra: Record<string, unknown> = {}): ServerConfig => ServerConfigSchema.parse({ type: 'http', url, ...extra });
const argsOf = (cfg: ServerConfig) => (cfg.type === 'stdio' ? cfg.args : []);
/** The config as the list shows it, with its args edited by `edit`. */
const editedArgs = (cfg: ServerConfig, edit: (args: string[]) => string[]): ServerConfig => {
  const shown = maskServerSecrets(cfg);
  return shown.type === 'stdio' ? { ...shown, args: edit(shown.args) } : shown;
};

describe('a masked config sent back unchanged is the stored one', () => {
  it.each<[string, ServerConfig]>([
    ['a password in a database address', stdio(['-y', '@modelcontextprotocol/server-postgres', 'postgresql://alice:s3cretPassw0rd@localhost/mydb'])],
    ['key=value words', stdio(['api_key=sk-abcdef123456', 'TOKEN=ghp_abcdefabcdef123', 'mode=fast'])],
    ['options with their values', stdio(['--token=abc123def456', '--api-key', 'sk-abcdef123456', '--password', 'x', '--port', '80'])],
    ['two options that list the same', stdio(['--api-key', 'key-one-111111', '--password', 'pw-two-222222'])],
    ['a secret in the command and the working folder', stdio([], { command: 'TOKEN=abc123def456 npx', cwd: '/srv/password=hunter2xyz' })],
    ['a label', stdio([], { label: 'prod (password: hunter2xyz)' })],
    ['an unknown key parameter in an address', http('https://mcp.example.com/mcp?apitoken=abcdef123456&region=eu')],
    ['a known key parameter and a fragment', http('https://mcp.example.com/mcp?api_key=abcdef123456&x=1#top')],
  ])('%s', (_name, stored) => {
    const shown = maskServerSecrets(stored);
    expect(shown).not.toEqual(stored);
    expect(JSON.stringify(shown)).not.toMatch(/s3cretPassw0rd|sk-abcdef|ghp_|abc123def456|hunter2xyz|abcdef123456|key-one|pw-two/);
    expect(restoreMaskedSecrets(shown, stored)).toEqual(stored);
    // Switched off, then on again: still the stored values.
    expect(restoreMaskedSecrets({ ...shown, enabled: false }, stored)).toEqual({ ...stored, enabled: false });
  });
});

describe('an edited config', () => {
  const db = stdio(['-y', 'server', 'postgresql://alice:s3cretPassw0rd@localhost/mydb', '--api-key', 'sk-abcdef123456']);

  it('keeps a secret still shown masked in an edited word', () => {
    const next = editedArgs(db, (args) => args.map((a) => a.replace('/mydb', '/otherdb')));
    expect(argsOf(restoreMaskedSecrets(next, db))).toEqual([
      '-y',
      'server',
      'postgresql://alice:s3cretPassw0rd@localhost/otherdb',
      '--api-key',
      'sk-abcdef123456',
    ]);
  });

  it('keeps the secrets when other words are added or removed', () => {
    const next = editedArgs(db, (args) => ['--read-only', ...args.filter((a) => a !== '-y')]);
    expect(argsOf(restoreMaskedSecrets(next, db))).toEqual([
      '--read-only',
      'server',
      'postgresql://alice:s3cretPassw0rd@localhost/mydb',
      '--api-key',
      'sk-abcdef123456',
    ]);
  });

  it('takes a value typed over the mask', () => {
    const next = editedArgs(db, (args) =>
      args.map((a) => (a.startsWith('postgresql:') ? 'postgresql://alice:n3wPass@localhost/mydb' : a === '***' ? 'sk-typed-777' : a)),
    );
    expect(argsOf(restoreMaskedSecrets(next, db))).toEqual([
      '-y',
      'server',
      'postgresql://alice:n3wPass@localhost/mydb',
      '--api-key',
      'sk-typed-777',
    ]);
  });

  it('leaves a mask that stands for nothing stored as typed', () => {
    const next = editedArgs(db, (args) => [...args, 'extra=***']);
    expect(argsOf(restoreMaskedSecrets(next, db)).at(-1)).toBe('extra=***');
    expect(restoreMaskedSecrets(stdio(['token=***']), undefined)).toEqual(stdio(['token=***']));
  });
});

describe('a renamed env variable or header', () => {
  const env = (values: Record<string, string>) => stdio([], { env: values });
  const shownEnv = (cfg: ServerConfig) => {
    const shown = maskServerSecrets(cfg);
    return shown.type === 'stdio' ? shown.env : {};
  };

  it('keeps the value of the one variable renamed with its value still masked', () => {
    const stored = env({ K1: 'value-one-111', K2: 'value-two-222' });
    const { K2, ...rest } = shownEnv(stored);
    expect(restoreMaskedSecrets(env({ ...rest, K3: K2! }), stored)).toMatchObject({ env: { K1: 'value-one-111', K3: 'value-two-222' } });
  });

  it('names the stored value when it is in the secret store, for storeServerSecrets to move', () => {
    const stored = env({ K1: SECRET_REF, K2: SECRET_REF });
    expect(restoreMaskedSecrets(env({ K1: '***', K3: '***' }), stored)).toMatchObject({ env: { K1: SECRET_REF, K3: movedSecretRef('K2') } });
    const header = http('https://h/mcp', { headers: { 'X-Old': SECRET_REF } });
    expect(restoreMaskedSecrets(http('https://h/mcp', { headers: { 'X-New': '***' } }), header)).toMatchObject({
      headers: { 'X-New': movedSecretRef('X-Old') },
    });
  });

  it('refuses a masked value under a new name that stands for nothing stored, naming the field', () => {
    const stored = env({ K1: SECRET_REF, K2: SECRET_REF });
    const refused = (next: ServerConfig) => {
      try {
        restoreMaskedSecrets(next, stored);
      } catch (err) {
        return err instanceof ControlError ? { code: err.code, field: err.field, message: err.message } : err;
      }
      return 'taken';
    };
    // Nothing renamed: K3 is new.
    expect(refused(env({ K1: '***', K2: '***', K3: '***' }))).toEqual({
      code: 'invalid',
      field: 'config.env.K3',
      message: 'K3 shows a hidden value (***) but no value is stored under that name: type its value.',
    });
    // Two gone, one new: which one it was is not known.
    expect(refused(env({ K3: '***' }))).toMatchObject({ field: 'config.env.K3' });
    // Two new for one gone.
    expect(refused(env({ K1: '***', K3: '***', K4: '***' }))).toMatchObject({ code: 'invalid' });
    // A value typed under the new name is taken.
    expect(refused(env({ K1: '***', K3: 'typed-value-3' }))).toBe('taken');
  });
});

/**
 * A bridge entry names this data folder when its --data-dir is the same folder on this OS: on Windows and
 * macOS a spelling in another case is (their file systems ignore case, and on Windows the bridge's pipe
 * name folds case, so it reaches this hub); on Linux it is another folder.
 */
import { expect, it } from 'vitest';
import { writtenFrom } from '../../electron/core/clients/entry-owner.js';
import type { ServerSpec } from '../../electron/core/clients/index.js';
import { socketPathFor } from '../../electron/core/downstream/socket-endpoint.js';

function bridge(dataDir: string): ServerSpec {
  return { name: 'spillway', transport: 'stdio', command: 'C:\\S\\Spillway.exe', args: ['x.js', 'bridge', '--data-dir', dataDir], file: 'f' };
}

it("on Windows an entry naming this data folder in another case is this folder's, as its bridge reaches this hub", () => {
  const written = 'C:\\Users\\Bob\\AppData\\Roaming\\Spillway';
  const hubDir = 'c:\\users\\bob\\appdata\\roaming\\spillway';
  expect(socketPathFor({ dataDir: written, platform: 'win32' })).toBe(socketPathFor({ dataDir: hubDir, platform: 'win32' }));
  expect(writtenFrom(bridge(written), { dataDir: hubDir, platform: 'win32', clientToken: undefined })).toBe(true);
  expect(writtenFrom(bridge('C:\\Users\\Bob\\AppData\\Roaming\\Spillway\\'), { dataDir: hubDir, platform: 'win32', clientToken: undefined })).toBe(
    true,
  );
  expect(writtenFrom(bridge('D:\\Spillway'), { dataDir: hubDir, platform: 'win32', clientToken: undefined })).toBe(false);
});

it('on macOS another case is the same folder; on Linux it is another', () => {
  const entry = bridge('/Users/bob/Library/Application Support/Spillway');
  const hubDir = '/users/bob/library/application support/spillway';
  expect(writtenFrom(entry, { dataDir: hubDir, platform: 'darwin', clientToken: undefined })).toBe(true);
  expect(writtenFrom(entry, { dataDir: hubDir, platform: 'linux', clientToken: undefined })).toBe(false);
  expect(writtenFrom(entry, { dataDir: '/Users/bob/Library/Application Support/Spillway/', platform: 'linux', clientToken: undefined })).toBe(true);
});

/** Which server an unprefixed name clash goes to stays what it was when names were ordered by localeCompare. */
import { expect, it } from 'vitest';
import { assignNames } from '../../electron/core/catalog/tool-names.js';

it('gives an unprefixed clash to the server first in reading order, whatever the case of its id', () => {
  const items = [
    { serverId: 'Docs', original: 'search', prefix: false },
    { serverId: 'api', original: 'search', prefix: false },
  ];
  const { names, clashes } = assignNames(items, 64);
  expect(names.get('search')?.serverId).toBe('api');
  expect(clashes.map((c) => c.item.serverId)).toEqual(['Docs']);
});

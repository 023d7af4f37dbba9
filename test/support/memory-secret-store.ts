/** A secret store held in a Map (unit tests of code that uses one): `items` maps `<server>/<name>` to the value. */
import { KnownValues, type SecretStore } from '../../electron/core/secrets/secret-store.js';

export function memorySecretStore(): SecretStore & { items: Map<string, string> } {
  const items = new Map<string, string>();
  const known = new KnownValues();
  return {
    kind: 'encrypted-file',
    items,
    get: async (id, name) => items.get(`${id}/${name}`),
    set: async (id, name, value) => void (items.set(`${id}/${name}`, value), known.note(`${id}/${name}`, value)),
    delete: async (id, name) => void items.delete(`${id}/${name}`),
    known: () => known.list(),
  };
}

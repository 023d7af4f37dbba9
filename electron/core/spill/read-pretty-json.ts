/**
 * A query's answer as pretty JSON, the text of `JSON.stringify(value, null, 2)`, written only up to a size.
 * JSON Query can answer with a value whose parts are shared: `{a: get(), b: get()}` repeated n times is
 * built in n steps, but its text doubles with each one. Printed in full, n = 22 held the hub for seconds
 * and n = 40 for hours; here every value written adds at least one character, so the work stops soon
 * after `maxChars`.
 */
import { charBoundary } from '../tokens/text-cuts.js';
import { isLosslessNumber } from './exact-json.js';

export interface PrettyJson {
  /** The whole text, or its first `maxChars` characters (cut at a character boundary). */
  text: string;
  complete: boolean;
  /** A LosslessNumber was written (as its own text, exact-json.ts): no TOON or JSON.stringify can write the value. */
  losslessNumbers?: true;
}

export function prettyJsonWithin(value: unknown, maxChars: number): PrettyJson {
  const parts: string[] = [];
  let length = 0;
  let losslessNumbers: true | undefined;
  /** Adds `s`; false once the text is past `maxChars` (then everyone stops writing). */
  const emit = (s: string): boolean => {
    parts.push(s);
    length += s.length;
    return length <= maxChars;
  };

  const write = (v: unknown, indent: string): boolean => {
    if (v === null) return emit('null');
    switch (typeof v) {
      case 'string':
        return emit(JSON.stringify(v));
      case 'number':
        return emit(Number.isFinite(v) ? String(v) : 'null');
      case 'boolean':
        return emit(String(v));
      case 'object':
        if (isLosslessNumber(v)) {
          losslessNumbers = true;
          return emit(v.value);
        }
        return Array.isArray(v) ? writeArray(v, indent) : writeObject(v as Record<string, unknown>, indent);
      default:
        return emit(String(JSON.stringify(v))); // bigint throws as JSON.stringify does; nothing else reaches here
    }
  };

  const writeArray = (items: readonly unknown[], indent: string): boolean => {
    if (items.length === 0) return emit('[]');
    const inner = indent + '  ';
    for (let i = 0; i < items.length; i++) {
      if (!emit(i === 0 ? `[\n${inner}` : `,\n${inner}`)) return false;
      const item = jsonValue(items[i], String(i));
      if (!(item === undefined ? emit('null') : write(item, inner))) return false;
    }
    return emit(`\n${indent}]`);
  };

  const writeObject = (record: Record<string, unknown>, indent: string): boolean => {
    const inner = indent + '  ';
    let first = true;
    for (const key of Object.keys(record)) {
      const item = jsonValue(record[key], key);
      if (item === undefined) continue; // JSON.stringify leaves such a key out
      if (!emit(`${first ? '{\n' : ',\n'}${inner}${JSON.stringify(key)}: `)) return false;
      first = false;
      if (!write(item, inner)) return false;
    }
    return emit(first ? '{}' : `\n${indent}}`);
  };

  const top = jsonValue(value, '');
  const complete = top === undefined ? emit('null') : write(top, '');
  const text = parts.join('');
  const cut = complete ? text : text.slice(0, charBoundary(text, maxChars));
  return losslessNumbers ? { text: cut, complete, losslessNumbers } : { text: cut, complete };
}

/** What JSON.stringify writes for a value: after `toJSON` and unboxing; undefined for what it leaves out. */
function jsonValue(v: unknown, key: string): unknown {
  if (typeof v === 'object' && v !== null) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') v = (toJSON as (key: string) => unknown).call(v, key);
    if (v instanceof Number || v instanceof String || v instanceof Boolean) v = v.valueOf();
  }
  return v === undefined || typeof v === 'function' || typeof v === 'symbol' ? undefined : v;
}

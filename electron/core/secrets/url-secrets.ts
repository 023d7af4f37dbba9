/**
 * Credentials in a remote server's address (`https://mcp.example.com/mcp?api_key=…`, as many hosted MCP
 * services hand them out): a query parameter named like a credential holds a secret, kept in the secret
 * store like a header value; config.json then holds `api_key=<secret>`. Parameters are found and replaced
 * in the address's text, so the rest of it stays exactly as the user wrote it. A secret a catalog entry
 * puts anywhere else in the address is kept as a header instead (hideUrlSecrets, below).
 */
import { SECRET_REF } from '../../../shared/config.js';

/** Parameter names that carry a credential: api_key, apiKey, key, token, access_token, secret, password, sig… */
const SECRET_PARAM =
  /^(?:.*[_.-])?(?:api[_-]?key|apikey|key|token|access[_-]?token|auth|authorization|secret|client[_-]?secret|password|passwd|pwd|sig|signature|credentials?)$/i;

/** Whether a query parameter's name says it carries a credential. */
export function isSecretParam(name: string): boolean {
  // camelCase names as snake_case: authToken → auth_Token.
  return SECRET_PARAM.test(name.replace(/([a-z0-9])([A-Z])/g, '$1_$2'));
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * The address with the value of each credential parameter `swap` returns a new value for (it gets the
 * decoded name and value; undefined keeps the value). SECRET_REF is written as it is, to stay readable in
 * config.json; any other value is encoded (a mask of asterisks encodes as itself).
 */
export function swapSecretParams(url: string, swap: (name: string, value: string) => string | undefined): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const hash = url.indexOf('#', query);
  const end = hash < 0 ? url.length : hash;
  const parts = url.slice(query + 1, end).split('&');
  let changed = false;
  const next = parts.map((part) => {
    const eq = part.indexOf('=');
    if (eq <= 0) return part;
    const name = decode(part.slice(0, eq));
    if (!isSecretParam(name)) return part;
    const value = swap(name, decode(part.slice(eq + 1)));
    if (value === undefined) return part;
    changed = true;
    return `${part.slice(0, eq)}=${value === SECRET_REF ? value : encodeURIComponent(value)}`;
  });
  return changed ? `${url.slice(0, query + 1)}${next.join('&')}${url.slice(end)}` : url;
}

/** The address with its credentials replaced by SECRET_REF, and the credentials by parameter name. */
export function splitUrlSecrets(url: string): { url: string; values: Map<string, string> } {
  const values = new Map<string, string>();
  const refs = swapSecretParams(url, (name, value) => {
    if (value === '' || value === SECRET_REF) return undefined;
    values.set(name, value);
    return SECRET_REF;
  });
  return { url: refs, values };
}

/** The names of the credential parameters whose value is SECRET_REF. */
export function urlSecretRefs(url: string): string[] {
  const names: string[] = [];
  swapSecretParams(url, (name, value) => {
    if (value === SECRET_REF) names.push(name);
    return undefined;
  });
  return names;
}

/** The values of an address's credential parameters, by name. */
export function urlSecretValues(url: string): Map<string, string> {
  const values = new Map<string, string>();
  swapSecretParams(url, (name, value) => void values.set(name, value));
  return values;
}

/**
 * A secret that a catalog entry puts elsewhere in an address than a credential parameter
 * (`https://mcp.example.com/{api_key}/mcp`, a key in the host name or in a parameter named otherwise):
 * only the entry says it is one, so the address holds `${SPILLWAY_SECRET_URL_<n>}` in its place and the
 * server's headers hold the text under that name — a secret like any header value, so in the secret store,
 * not in config.json (the same way a secret command-line word is kept: shared/server-config.ts's
 * secretArgName). expandSecretUrl puts the text back as the server is reached.
 */
export const secretUrlName = (n: number) => `SPILLWAY_SECRET_URL_${n}`;
const SECRET_URL_NAME = /^SPILLWAY_SECRET_URL_\d+$/;
const SECRET_URL_REF = /\$\{(SPILLWAY_SECRET_URL_\d+)\}/g;

/** Whether a header name carries a part of the address (see secretUrlName). */
export const isSecretUrlName = (name: string): boolean => SECRET_URL_NAME.test(name);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The address with each of `secrets` in it (as given, or URL-encoded) replaced by a secretUrlName
 * placeholder, and the text each placeholder stands for; `taken` are names in use (the server's headers).
 * The scheme is not searched, nor the value of a credential parameter: splitUrlSecrets keeps that one
 * (config.json then holds `api_key=<secret>`, as for an address typed by hand).
 */
export function hideUrlSecrets(
  url: string,
  secrets: Iterable<string>,
  taken: ReadonlySet<string> = new Set(),
): { url: string; values: Record<string, string> } {
  const texts = new Set<string>();
  for (const secret of secrets) if (secret !== '') texts.add(secret).add(encodeURIComponent(secret));
  const values: Record<string, string> = {};
  if (texts.size === 0) return { url, values };
  // The longest first: a secret holding another is replaced whole.
  const pattern = new RegExp(
    [...texts]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
  const names = new Map<string, string>();
  let n = 0;
  const placeholder = (text: string) => {
    let name = names.get(text);
    if (name === undefined) {
      do name = secretUrlName(++n);
      while (taken.has(name));
      names.set(text, name);
      values[name] = text;
    }
    return `\${${name}}`;
  };
  const { url: refs, values: params } = splitUrlSecrets(url);
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(refs)?.[0] ?? '';
  const rest = refs
    .slice(scheme.length)
    .split(SECRET_REF)
    .map((piece) => piece.replace(pattern, placeholder))
    .join(SECRET_REF);
  if (n === 0) return { url, values };
  return { url: swapSecretParams(scheme + rest, (name, value) => (value === SECRET_REF ? params.get(name) : undefined)), values };
}

/**
 * A remote server's address and headers as the server is reached: each secretUrlName placeholder
 * replaced by the header of that name, and those headers left out (they are parts of the address, not
 * headers to send). A placeholder without its header stays as written.
 */
export function expandSecretUrl(url: string, headers: Readonly<Record<string, string>>): { url: string; headers: Record<string, string> } {
  const expanded = url.replace(SECRET_URL_REF, (whole, name: string) => (Object.hasOwn(headers, name) ? headers[name]! : whole));
  return { url: expanded, headers: Object.fromEntries(Object.entries(headers).filter(([name]) => !isSecretUrlName(name))) };
}

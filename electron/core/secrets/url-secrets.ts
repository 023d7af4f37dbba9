/**
 * Credentials in a remote server's address (`https://mcp.example.com/mcp?api_key=…`, as many hosted MCP
 * services hand them out): a query parameter named like a credential holds a secret, kept in the secret
 * store like a header value; config.json then holds `api_key=<secret>`. Parameters are found and replaced
 * in the address's text, so the rest of it stays exactly as the user wrote it.
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

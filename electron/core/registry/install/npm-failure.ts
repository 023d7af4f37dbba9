/**
 * An npm install's failure in plain words: the errors of @npmcli/arborist, pacote and npm-registry-fetch
 * (a code, and for some a `type`, `pkgid` or `requiredBy`) become what happened and what to do next,
 * never the raw parser or system text.
 */
import { hasKnownTokenShape, isSensitiveKey, REDACTED } from '../../log/redact.js';
import { networkReason } from '../network-reason.js';

/** An install that failed, with a message that says what happened and what to do next. */
export class InstallError extends Error {
  constructor(
    message: string,
    /**
     * `refused`: the name or version is not one Spillway installs (install-names.ts); `damaged`: the
     * registry's answer could not be read; `disk_full`: the data folder's disk has no room.
     */
    readonly kind: 'not_found' | 'integrity' | 'unreachable' | 'no_program' | 'refused' | 'damaged' | 'disk_full' | 'failed',
  ) {
    super(message);
    this.name = 'InstallError';
  }
}

export const DISK_FULL = 'The disk is full: free some space, then add the server again.';

/** The fields npm's errors carry besides `code` (npm-registry-fetch, npm-pick-manifest, minipass-fetch). */
interface NpmErrorFields {
  code?: string;
  /** minipass-fetch's kind of FETCH_ERROR: `request-timeout`, `body-timeout`, `invalid-json`, … */
  type?: string;
  /** E404: the spec that was not found, e.g. `left-pad@^1.0.0`. */
  pkgid?: string;
  /** ETARGET: the range no published version fits (`name` then holds the package's name). */
  wanted?: string;
  name?: string;
  /** Arborist: where the failing spec was asked for, `.` for the project itself (the package Spillway installs). */
  requiredBy?: string;
}

const fieldsOf = (err: unknown): NpmErrorFields => (typeof err === 'object' && err !== null ? (err as NpmErrorFields) : {});

/** A dependency (not the package itself) that the registry does not have: its spec and who asks for it. */
function missingDependency(e: NpmErrorFields): { spec: string; by: string } | undefined {
  if (!e.requiredBy || e.requiredBy === '.') return undefined;
  const spec = e.code === 'ETARGET' ? (e.name && e.wanted ? `${e.name}@${e.wanted}` : undefined) : e.pkgid;
  // `node_modules/a/node_modules/@s/b` → `@s/b`
  const by = e.requiredBy.split('node_modules/').pop() ?? e.requiredBy;
  return spec ? { spec, by } : undefined;
}

const NETWORK_CODES =
  /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|E(CONNECTION|IDLE|RESPONSE|TRANSFER)TIMEOUT)$/;

/**
 * The npm registry's address as messages show it: without the user name and password, a query or
 * fragment, or a token in its path (`/_auth/<token>/`, `/:_authToken=<token>/`, `/<long key>/`): a
 * company mirror's address may carry a token in any of them. A path part after one named like a secret
 * (isSensitiveKey: `_auth`, `_authToken`, `token`), the value of a part `key=value` whose key is named
 * so, or a part shaped like a credential becomes `***`, as the event log masks them.
 */
export function registryOrigin(registry: string): string {
  return addressParts(registry)?.shown ?? withoutCredentials(registry);
}

/** The address as shown, and the secrets it holds (its password, query values, masked path parts) as given and decoded. */
function addressParts(registry: string): { shown: string; secrets: string[] } | undefined {
  let url: URL;
  try {
    url = new URL(registry);
  } catch {
    return undefined;
  }
  const secrets = [url.password, ...[...url.searchParams.values()].map(encodeURIComponent)];
  const parts = url.pathname.split('/');
  // A part `key=value` holds its own value; one named like a secret without `=` names the next part.
  const keyOf = (part: string) => (part.includes('=') ? undefined : part);
  const masked = parts.map((part, i) => {
    if (part === '') return part;
    const eq = part.indexOf('=');
    if (eq > 0 && isSensitiveKey(decoded(part.slice(0, eq)))) {
      secrets.push(part.slice(eq + 1));
      return `${part.slice(0, eq + 1)}${REDACTED}`;
    }
    const key = i > 0 ? keyOf(parts[i - 1]!) : undefined;
    if (!(key && isSensitiveKey(decoded(key))) && !credentialShaped(decoded(part))) return part;
    secrets.push(part);
    return REDACTED;
  });
  // Short values (a one-letter query value) would mask ordinary words too.
  const held = secrets.flatMap((secret) => [secret, decoded(secret)]).filter((secret) => secret.length >= 6);
  return { shown: `${url.origin}${masked.join('/')}`, secrets: [...new Set(held)] };
}

const decoded = (part: string) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A path part that is a credential by its shape: a known token's, a UUID, or one long run of letters
 * mixed with digits. Words joined by `-` or `.` are a repository's name (`npm-virtual-repository-2024`).
 */
const credentialShaped = (part: string) =>
  hasKnownTokenShape(part) || UUID.test(part) || part.split(/[-.]/).some((run) => run.length >= 16 && /\d/.test(run) && /[A-Za-z]/.test(run));

/** `scheme://user:password@host…` → `scheme://host…`, wherever an address appears in a text. */
function withoutCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1');
}

/**
 * A text with every mention of the npm registry's address (and of what is under it) as messages show
 * it, and a secret the address holds masked wherever else the text repeats it (a tarball's address on
 * another host, a package's address without the query).
 */
function withShownRegistry(text: string, registry: string): string {
  const parts = addressParts(registry);
  const shown = parts?.shown ?? withoutCredentials(registry);
  const plain = parts ? new URL(registry).href : undefined;
  const given = [registry, plain, plain && withoutCredentials(plain)].flatMap((a) => (a ? [a, a.replace(/\/+$/, '')] : []));
  // The longest first, so the address with its closing slash is replaced whole.
  for (const address of [...new Set(given)].sort((a, b) => b.length - a.length)) {
    if (address.length > 0) text = text.split(address).join(shown.replace(/\/+$/, '') + (address.endsWith('/') ? '/' : ''));
  }
  for (const secret of (parts?.secrets ?? []).sort((a, b) => b.length - a.length)) text = text.split(secret).join(REDACTED);
  return withoutCredentials(text);
}

/** The plain words of an npm failure. */
export function installFailure(err: unknown, spec: string, registryUrl: string): InstallError {
  if (err instanceof InstallError) return err;
  const e = fieldsOf(err);
  const code = e.code ?? '';
  const registry = registryOrigin(registryUrl);
  const message = withShownRegistry(err instanceof Error ? err.message : String(err), registryUrl);
  if (code === 'ENOSPC' || code === 'EDQUOT') return new InstallError(DISK_FULL, 'disk_full');
  if (code === 'EINTEGRITY')
    return new InstallError(
      `The download of ${spec} did not match its checksum, so it may be damaged or tampered with. Nothing was installed. Try again later; if it keeps happening, check the npm registry in use (${registry}).`,
      'integrity',
    );
  if (code === 'E404' || code === 'ETARGET') {
    const dependency = missingDependency(e);
    if (dependency) {
      const via = `${spec} needs ${dependency.spec}${spec.startsWith(`${dependency.by}@`) ? '' : ` (for ${dependency.by})`}`;
      const lacks = code === 'ETARGET' ? 'has no version of it that fits' : 'does not have it';
      return new InstallError(
        `${via}, and the npm registry (${registry}) ${lacks}, so nothing was installed. Tell the server's publisher, or check the npm registry in use.`,
        'not_found',
      );
    }
    return new InstallError(
      `The npm registry (${registry}) has no package ${spec}. Check the name and version, or the npm registry in use.`,
      'not_found',
    );
  }
  // A package document that is not JSON, a download that is not a package archive (an HTML error page).
  if ((code === 'FETCH_ERROR' && e.type === 'invalid-json') || code === 'EJSONPARSE' || code.startsWith('TAR_'))
    return new InstallError(
      `The npm registry sent a damaged answer (for ${spec}, from ${registry}), so nothing was installed: try again later, or check a proxy.`,
      'damaged',
    );
  // FETCH_ERROR: minipass-fetch's own failures, a request that took longer than the timeout among them.
  if (NETWORK_CODES.test(code) || /^E5\d\d$/.test(code) || code === 'FETCH_ERROR') {
    const timedOut = code === 'FETCH_ERROR' && /timeout/.test(e.type ?? '');
    const reason = timedOut
      ? networkReason('ETIMEDOUT')
      : networkReason(code) || (code.startsWith('E5') ? `: it answered with a server error (${code.slice(1)})` : '');
    return new InstallError(`Could not reach the npm registry (${registry})${reason}. Check the internet connection, then try again.`, 'unreachable');
  }
  return new InstallError(`Could not install ${spec}: ${message}`, 'failed');
}

/**
 * The environment of a hub a bridge starts. The bridge runs with whatever its client gave it (the client's
 * own keys, the token in SPILLWAY_TOKEN), and the hub outlives the bridge and hands its environment on to
 * every server it runs: so it gets only what finding the user's folders, programs, network and desktop
 * needs, the same whichever client happened to start it.
 */

/** Kept as they are (names compared in upper case: Windows spells them freely, `http_proxy` is common). */
const KEPT = new Set([
  // Where things are: the user, their programs and folders, the temp folder (the socket path depends on it).
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  'TMP',
  'TEMP',
  // Language and time, for the servers' messages and dates.
  'LANG',
  'LANGUAGE',
  'TZ',
  // The desktop session: the system keychain and the app's window on Linux.
  'DISPLAY',
  'XAUTHORITY',
  'WAYLAND_DISPLAY',
  'DBUS_SESSION_BUS_ADDRESS',
  // The user's SSH agent, for servers that fetch over git+ssh.
  'SSH_AUTH_SOCK',
  // The network: proxies and extra certificate authorities (registry downloads, HTTP servers).
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  // Where AI apps keep their settings, when moved (the hub finds their config files by them).
  'CLAUDE_CONFIG_DIR',
  'CODEX_HOME',
  'CLINE_DIR',
  // Windows: the system, the user's profile folders and how programs are found.
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'USERNAME',
  'USERDOMAIN',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'PROGRAMFILES(X86)',
  'PROGRAMW6432',
  'COMMONPROGRAMFILES',
  'COMMONPROGRAMFILES(X86)',
  'NUMBER_OF_PROCESSORS',
  'PROCESSOR_ARCHITECTURE',
  'OS',
]);

/** Kept by prefix: locale categories (LC_ALL, LC_CTYPE…) and the XDG folders (config, data, runtime…). */
const KEPT_PREFIXES = ['LC_', 'XDG_'];

/** The part of `env` a hub started by the bridge gets (Spillway's own variables are set by the launcher). */
export function hubEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (KEPT.has(upper) || KEPT_PREFIXES.some((p) => upper.startsWith(p))) out[name] = value;
  }
  return out;
}

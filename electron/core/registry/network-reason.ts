/** Why a connection failed, in words (the system's error code means nothing to most people); empty when unknown. */
export function networkReason(code: string | undefined): string {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return ': its address could not be found';
  if (code === 'ECONNREFUSED') return ': nothing answered at that address';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return ': the connection was cut';
  // The last four are npm's own (@npmcli/agent) for a connection or answer that took too long.
  if (code === 'ETIMEDOUT' || (code && /^E(CONNECTION|IDLE|RESPONSE|TRANSFER)TIMEOUT$/.test(code))) return ': it did not answer';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return ': this computer has no route to it';
  if (code && /CERT|SSL|TLS/.test(code)) return ': its security certificate was not accepted';
  return '';
}

/** Why a connection failed, in words (the system's error code means nothing to most people); empty when unknown. */
export function networkReason(code: string | undefined): string {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return ': its address could not be found';
  if (code === 'ECONNREFUSED') return ': nothing answered at that address';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return ': the connection was cut';
  if (code === 'ETIMEDOUT') return ': it did not answer';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return ': this computer has no route to it';
  if (code && /CERT|SSL|TLS/.test(code)) return ': its security certificate was not accepted';
  return '';
}

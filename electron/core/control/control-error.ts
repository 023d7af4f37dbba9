/** A control request that cannot be done: its code maps to the API's error codes, `field` names the input at fault. */
export class ControlError extends Error {
  constructor(
    readonly code: 'invalid' | 'not_found' | 'conflict' | 'unavailable' | 'internal',
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

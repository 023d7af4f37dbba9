/**
 * Whether a failure means "this hub does not offer the method yet" (it answers `not_found` for methods
 * other engineers are still wiring): views show that as "not available yet", never as a crash.
 */
import type { ApiFailure } from './api.js';

export function notOffered(failure: ApiFailure | undefined): boolean {
  return failure?.code === 'not_found';
}

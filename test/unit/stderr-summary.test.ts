/** What a crashed server's status quotes of its stderr: the error that ended it, not one it printed long before. */
import { describe, expect, it } from 'vitest';
import { withServerOutput } from '../../electron/core/upstream/connect-error.js';

describe('the stderr summary of a crash', () => {
  it('names the panic that ended a Go server, not a warning it printed at start', () => {
    const stderr = [
      'Error: optional plugin "foo" not found, continuing without it',
      'listening on stdio',
      'panic: runtime error: index out of range [3] with length 3',
      '',
      'goroutine 1 [running]:',
      'main.main()',
      '\t/app/main.go:12 +0x1d',
    ];
    const msg = withServerOutput('the server closed the connection', stderr, { code: 2, signal: null }, false);
    expect(msg).toContain('panic: runtime error');
  });
  it('names the Rust panic, not an earlier handled error', () => {
    const stderr = [
      'Error: cache dir missing; using memory cache',
      "thread 'main' panicked at src/main.rs:5:5:",
      'called `Option::unwrap()` on a `None` value',
      'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
    ];
    const msg = withServerOutput('the server closed the connection', stderr, { code: 101, signal: null }, false);
    expect(msg).toContain('panicked');
  });
});

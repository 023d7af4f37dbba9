import { parseJson } from './result-view.js';

/** A spilled text view held in memory for read operations; lines and JSON are derived once, on demand. */
export class SpillDocument {
  readonly text: string;
  #lines: string[] | null = null;
  #json: { value: unknown } | undefined | null = null;

  constructor(text: string) {
    this.text = text;
  }

  /** Lines without their terminators (`\n` or `\r\n`); a trailing newline does not add an empty line. */
  get lines(): string[] {
    if (!this.#lines) {
      const lines = this.text.length === 0 ? [] : this.text.split(/\r?\n/);
      if (lines.length > 0 && lines[lines.length - 1] === '' && this.text.endsWith('\n')) lines.pop();
      this.#lines = lines;
    }
    return this.#lines;
  }

  /** The parsed JSON value, or undefined when the text is not JSON. */
  get json(): { value: unknown } | undefined {
    if (this.#json === null) this.#json = parseJson(this.text);
    return this.#json;
  }
}

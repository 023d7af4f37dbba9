/**
 * Where JSON text first goes wrong, said without quoting it. JSON.parse's own message quotes the text
 * around the fault (V8: `Unexpected token 'g', ..."B_TOKEN": ghp_R4nd0m"... is not valid JSON`), and in
 * a config file typed by hand that text may be a secret; the message goes to the log and the window.
 * Runtime-neutral: no node:*, no electron, no DOM.
 */

/** A JSON fault: its line and column (from 1) and what is wrong there, in plain words. */
export interface JsonFault {
  line: number;
  column: number;
  problem: string;
}

const ENDS_EARLY = 'the text ends too early (a closing "}", "]" or double quote is missing)';
const VALUE = 'a value is expected here (text in double quotes, a number, true, false, null, {…} or […])';

class Fault {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

/** A recursive-descent reader of RFC 8259 JSON that only finds the first fault. */
class Reader {
  pos = 0;
  constructor(private readonly text: string) {}

  fail(problem: string): never {
    throw new Fault(this.pos, this.pos >= this.text.length ? ENDS_EARLY : problem);
  }

  space(): void {
    while (/[ \t\n\r]/.test(this.text[this.pos] ?? '')) this.pos++;
  }

  value(): void {
    this.space();
    const c = this.text[this.pos];
    if (c === '{') return this.container('}', true);
    if (c === '[') return this.container(']', false);
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return;
      }
    }
    this.fail(VALUE);
  }

  /** An object (names and values) or an array, after its opening bracket. */
  container(close: '}' | ']', named: boolean): void {
    this.pos++;
    this.space();
    if (this.text[this.pos] === close) return void this.pos++;
    for (;;) {
      if (named) {
        this.space();
        if (this.text[this.pos] !== '"') this.fail('a name in double quotes is expected here');
        this.string();
        this.space();
        if (this.text[this.pos] !== ':') this.fail('a ":" is expected after the name');
        this.pos++;
      }
      this.value();
      this.space();
      const c = this.text[this.pos];
      if (c === close) return void this.pos++;
      if (c !== ',') this.fail(`a "," or "${close}" is expected here (is a comma missing?)`);
      this.pos++;
      this.space();
      if (this.text[this.pos] === close) this.fail(`a comma before "${close}" is not allowed: remove it`);
    }
  }

  string(): void {
    this.pos++;
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined) this.fail(ENDS_EARLY);
      if (c === '"') return void this.pos++;
      if (c < ' ') this.fail('a line break or tab inside text in double quotes must be written as \\n or \\t');
      if (c === '\\') {
        const escape = this.text[this.pos + 1];
        if (escape === 'u' && /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) this.pos += 4;
        else if (escape === undefined || !'"\\/bfnrt'.includes(escape)) this.fail('a backslash in text must be written as \\\\');
        this.pos++;
      }
      this.pos++;
    }
  }

  number(): void {
    const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    number.lastIndex = this.pos;
    const found = number.exec(this.text);
    if (!found || /[.eE]/.test(this.text[number.lastIndex] ?? '')) this.fail('a number is not written as JSON allows');
    this.pos = number.lastIndex;
  }
}

/** The first fault in `text`, or undefined when it is valid JSON. */
export function findJsonFault(text: string): JsonFault | undefined {
  const reader = new Reader(text);
  try {
    reader.value();
    reader.space();
    if (reader.pos < text.length) reader.fail('there is more text after the end of the config');
    return undefined;
  } catch (err) {
    // Nesting deeper than the stack allows: the fault is not found, and the message just gives no place.
    if (!(err instanceof Fault)) return undefined;
    const before = text.slice(0, err.offset);
    const lineStart = before.lastIndexOf('\n') + 1;
    return { line: before.split('\n').length, column: err.offset - lineStart + 1, problem: err.problem };
  }
}

/** `, at line 4, column 12: <problem>`, or nothing when no fault is found. */
export function jsonSyntaxError(text: string): string {
  const fault = findJsonFault(text);
  return fault ? `, at line ${fault.line}, column ${fault.column}: ${fault.problem}` : '';
}

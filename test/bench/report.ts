/**
 * The bench's output: each part's table as it finishes, then every table again in one block at the end
 * (ready to paste into the README) with the issue's goals and whether this run met them.
 */

interface Section {
  title: string;
  header: string[];
  rows: string[][];
  notes: string[];
}

export interface Goal {
  goal: string;
  figure: string;
  met: boolean;
  /** The issue the goal belongs to. */
  issue: number;
}

function markdown(s: Section): string {
  const widths = s.header.map((h, i) => Math.max(h.length, ...s.rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (c ?? '').padEnd(widths[i])).join(' | ')} |`;
  return [
    `### ${s.title}`,
    '',
    line(s.header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...s.rows.map(line),
    ...(s.notes.length ? ['', ...s.notes] : []),
    '',
  ].join('\n');
}

export class Report {
  readonly #sections: Section[] = [];
  readonly #goals: Goal[] = [];

  /** Adds a table (and prints it at once, as progress). */
  table(title: string, header: string[], rows: string[][], notes: string[] = []): void {
    const section = { title, header, rows, notes };
    this.#sections.push(section);
    console.log(`\n${markdown(section)}`);
  }

  /** A goal of an issue (12, the call path, unless said) and whether this run met it. */
  goal(goal: string, figure: string, met: boolean, issue = 12): void {
    this.#goals.push({ goal, figure, met, issue });
  }

  /** A part that could not run: said in the final output rather than dropped silently. */
  failed(part: string, err: unknown): void {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    console.error(`\n${part} failed: ${message}`);
    this.table(`${part}: failed`, ['error'], [[message]]);
  }

  print(context: string): void {
    console.log(`\n\n## Bench summary\n\n${context}\n`);
    for (const s of this.#sections) console.log(markdown(s));
    const met = this.#goals.filter((g) => g.met).length;
    console.log(
      markdown({
        title: `Goals: ${met} of ${this.#goals.length} met`,
        header: ['issue', 'goal', 'this run', 'met'],
        rows: this.#goals.map((g) => [`#${g.issue}`, g.goal, g.figure, g.met ? 'yes' : '**no**']),
        notes: [],
      }),
    );
  }
}

/**
 * A client's settings file Spillway cannot read, said for a user. The hub names the parser's code
 * ("…column 19: InvalidSymbol (not valid JSON). The file was left as it is."); the window says where the
 * mistake is, that nothing was changed, and what to do next.
 */
const UNPARSABLE = /^Cannot read (.+) at line (\d+), column (\d+): .*\(not valid (JSON|TOML)\)\. The file was left as it is\.$/s;

/** The hub's message about a client's file in plain words; messages of another kind are returned as they are. */
export function clientConfigProblem(message: string): string {
  const found = UNPARSABLE.exec(message);
  if (!found) return message;
  const [, file, line, column, format] = found;
  return (
    `${file} is not valid ${format}: there is a mistake at line ${line}, column ${column}. Spillway left the file untouched. ` +
    "Fix it in a text editor, or press Restore backup to go back to the copy from before Spillway's last change; then press Check again."
  );
}

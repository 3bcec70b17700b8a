/**
 * The content columns of the containers the block being parsed is in, innermost last: for a
 * list or a footnote definition, the column of the container it starts in (its own column is
 * the parser state's blkIndent while its content is parsed); a quote starts its content at 0
 * again. A line left of the innermost container's column belongs to the deepest one whose
 * column it reaches (CommonMark's lazy-line rule); fast-blocks' interrupts reads it there.
 * One parse runs at a time (the parser is synchronous), so one stack serves every parse. It is
 * never deeper than markdown-it's maxNesting (100), which bounds enclosingIndent's scan.
 */
const indents: number[] = [];

/** Runs `parse` with `indent` as the innermost enclosing column. */
export function withEnclosingIndent<T>(indent: number, parse: () => T): T {
  enterEnclosingIndent(indent);
  try {
    return parse();
  } finally {
    leaveEnclosingIndent();
  }
}

/**
 * withEnclosingIndent without a closure, for the rules markdown-it calls at every block start
 * (a closure each made 40 MB a pass over 1 MB of nested lists): the caller pairs it with
 * leaveEnclosingIndent in a `finally`.
 */
export function enterEnclosingIndent(indent: number): void {
  indents.push(indent);
}

export function leaveEnclosingIndent(): void {
  indents.pop();
}

/** The deepest enclosing container's content column that a line indented `indent` reaches. */
export function enclosingIndent(indent: number): number {
  for (let k = indents.length - 1; k >= 0; k--) if (indents[k]! <= indent) return indents[k]!;
  return 0;
}

/**
 * Is one chunk valid markdown on its own? Seed 000's "validate Markdown AST after
 * splitting": a chunk must not leave a code fence open, and must not hold table
 * rows without their header and delimiter row. Line-based, like the peer
 * benchmark's structure checks, so the verdict is the same for every chunker.
 */
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const DELIMITER = /^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$/;

export interface MarkdownProblem {
  line: number;
  message: string;
}

/** A table row by GFM's looks: the trimmed line starts or ends with a pipe. */
const isRow = (line: string): boolean => {
  const t = line.trim();
  return t.length > 1 && (t.startsWith('|') || t.endsWith('|'));
};

export function markdownProblems(text: string): MarkdownProblem[] {
  const lines = text.split('\n');
  const problems: MarkdownProblem[] = [];
  let fence: { char: string; len: number; line: number } | null = null;
  let inComment = false;
  let run: number[] = [];
  const flushRun = (): void => {
    if (run.length > 0) {
      const first = lines[run[0]!]!.trim();
      const second = run.length > 1 ? lines[run[1]!]!.trim() : null;
      if (DELIMITER.test(first)) problems.push({ line: run[0]! + 1, message: 'table starts at its delimiter row: the header row is missing' });
      else if (second === null || !DELIMITER.test(second)) {
        problems.push({ line: run[0]! + 1, message: 'table rows without a header and delimiter row (a table cut from its header)' });
      }
    }
    run = [];
  };
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (fence) {
      const close = new RegExp(`^ {0,3}${fence.char === '`' ? '`' : '~'}{${fence.len},}\\s*$`);
      if (close.test(line)) fence = null;
      return;
    }
    if (inComment) {
      if (line.includes('-->')) inComment = false;
      return;
    }
    const m = FENCE_OPEN.exec(line);
    if (m && !(m[1]![0] === '`' && m[2]!.includes('`'))) {
      flushRun();
      fence = { char: m[1]![0]!, len: m[1]!.length, line: i + 1 };
      return;
    }
    if (/^\s*<!--/.test(line) && !line.includes('-->')) {
      flushRun();
      inComment = true;
      return;
    }
    if (isRow(line)) run.push(i);
    else flushRun();
  });
  flushRun();
  if (fence) problems.push({ line: (fence as { line: number }).line, message: `code fence opened on line ${(fence as { line: number }).line} is never closed` });
  return problems;
}

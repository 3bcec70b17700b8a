/**
 * Is one chunk valid markdown on its own? Seed 000's "validate Markdown AST after
 * splitting": a chunk must not leave a code fence open, and must not hold table
 * rows without their header and delimiter row. Line-based, like the peer
 * benchmark's structure checks, so the verdict is the same for every chunker.
 */
/**
 * An opening code fence: `/^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line)` as [fence, info], in
 * linear time. That pattern backtracked quadratically over a long run of fence characters
 * followed by a line terminator `.` does not match (a lone CR, U+2028) anywhere after it:
 * such a line never opens a fence, whatever its run's length (issue 15).
 */
export function fenceOpen(line: string): [fence: string, info: string] | null {
  let start = 0;
  while (start < 3 && line[start] === ' ') start++;
  const char = line[start];
  if (char !== '`' && char !== '~') return null;
  let end = start;
  while (line[end] === char) end++;
  if (end - start < 3) return null;
  const info = line.slice(end);
  return /[\n\r\u2028\u2029]/.test(info) ? null : [line.slice(start, end), info];
}
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
  // CRLF, LF and a lone CR each end a line, as in CommonMark and chunking-tool: split at \n
  // alone, a chunk of a source saved with old Mac line ends was one line, so its whole table
  // failed as "rows without a header" and a fence it left open was never seen.
  const lines = text.split(/\r\n?|\n/);
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
  lines.forEach((line, i) => {
    if (fence) {
      const close = new RegExp(`^ {0,3}${fence.char === '`' ? '`' : '~'}{${fence.len},}\\s*$`);
      if (close.test(line)) fence = null;
      return;
    }
    if (inComment) {
      if (line.includes('-->')) inComment = false;
      return;
    }
    const m = fenceOpen(line);
    if (m && !(m[0][0] === '`' && m[1].includes('`'))) {
      flushRun();
      fence = { char: m[0][0]!, len: m[0].length, line: i + 1 };
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

// docs-score's usage errors name folders, topic ids and files as given, and a folder named with
// a line break ("s\r\nFAKE: x") wrote a raw CR LF: the CLI's io escapes ESC, C1 and bidi
// controls but keeps a CR LF, so the rest of the name read as a line of its own (helper-78
// probe). Each is one line now, as docs-query's. The built bins, as a user runs them.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

const bin = (app: string, name = app) => fileURLToPath(new URL(`../../${app}/bin/${name}.js`, import.meta.url));
const NAME = 's\r\nFAKE: line\u001b[2J';
const SHOWN = 's\\u000d\\u000aFAKE: line\\u001b[2J';
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'docs-score-one-line-'));
  const topic = join(root, 'docs', NAME, 't');
  mkdirSync(topic, { recursive: true });
  writeFileSync(join(topic, 'golden-reference.md'), '# Install\n\nRun npm install to get the tool.\n');
  expect(spawnSync(process.execPath, [bin('chunking-tool'), topic], { encoding: 'utf8' }).status).toBe(0);
  mkdirSync(join(root, NAME));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const score = (...args: string[]) => spawnSync(process.execPath, [bin('docs-score'), ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });

/** Exit 2, the message and the usage line, and no raw control character but the two newlines. */
function expectOneLine(r: ReturnType<typeof score>, message: string) {
  expect(r.status).toBe(2);
  expect(r.stderr).toBe(`docs-score: ${message}\nRun docs-score --help for usage.\n`);
}

it('a --queries topic that is not built: the known topics, named from folders, on one line', () => {
  writeFileSync(join(root, 'q.yaml'), 'queries:\n  - topic: nope\n    question: How?\n    answer: npm install\n');
  const r = score('docs', '--queries', 'q.yaml', '--metrics', 'recall');
  expect(r.stderr.split('\n').slice(-3)).toEqual([`docs-score: q.yaml:2: topic "nope" is not a built document here (known: ${SHOWN}/t)`, 'Run docs-score --help for usage.', '']);
  expect(r.status).toBe(2);
  expect(r.stderr).not.toMatch(/\r/);
});

it('a folder without topics, and one that is missing', () => {
  expectOneLine(score(NAME), `${SHOWN}: no topic folder (holding golden-reference.md) at or below it`);
  expectOneLine(score(`${NAME}x`), `${SHOWN}x: no such folder`);
});

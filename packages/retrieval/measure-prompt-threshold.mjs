#!/usr/bin/env node
// Measures SimHash prompt matching per Hamming distance, to choose the default
// (DEFAULT_MAX_HAMMING_DISTANCE in src/prompt-match.ts).
//
//   node packages/retrieval/measure-prompt-threshold.mjs <docs-dir | base-url> <paraphrases.json> [--max 20] [--json]
//
// paraphrases.json: [{ "topic": "libraries/x", "question": "…exactly as in qa-pairs.md…",
//                      "paraphrases": ["…", "…"] }]
// The docs must be built (index.json with prompt_hashes). Reads the built package
// (node tools/build.mjs packages/retrieval).
import { parseArgs } from 'node:util';
import { describeFsError, escapeControl, numberProblem, oneLine, readRegularFile, utf8TextProblem } from '@chunkyard/fs-atomic';
import { measureThresholds, openSource, parseParaphraseFile, walkTopics, DEFAULT_MAX_HAMMING_DISTANCE } from './dist/index.js';

// Questions, topic ids and paths come from files and servers: a terminal must not obey control
// characters in them (an escape sequence in a question cleared the screen), and an error is one line.
const out = (s) => process.stdout.write(escapeControl(s));
const fail = (s) => process.stderr.write(`${oneLine(s)}\n`);

const USAGE = 'usage: measure-prompt-threshold.mjs <docs-dir | base-url> <paraphrases.json> [--max 20] [--json]\n';
let positionals, values;
try {
  ({ positionals, values } = parseArgs({
    allowPositionals: true,
    options: { max: { type: 'string', default: '20' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
  }));
} catch (err) {
  // parseArgs's own words, not its stack trace (an unknown option, a missing value).
  fail(err.message);
  process.stderr.write(USAGE);
  process.exit(2);
}
if (values.help || positionals.length !== 2) {
  process.stderr.write(USAGE);
  process.exit(values.help ? 0 : 2);
}
// Every CLI's number check: Number() read "" as 0 and took "0x10" and " 5" as numbers.
const maxProblem = numberProblem('--max', values.max, { min: 0, max: 64 });
if (maxProblem !== null) {
  fail(maxProblem);
  process.exit(2);
}
const max = Number(values.max);
const [docs, file] = positionals;
let bytes;
try {
  // A FIFO given as the file blocked the read until killed; a missing file was Node's words
  // ("ENOENT: no such file or directory, open 'q.json'") after the path.
  bytes = readRegularFile(file);
} catch (err) {
  fail(describeFsError(err, file));
  process.exit(2);
}
// Decoded with replacement characters, a Latin-1 question lost its accents to U+FFFD and was
// reported as "skipped (no stored hash)" without a word about the file.
const problem = utf8TextProblem(bytes);
if (problem !== null) {
  fail(`${file}: ${problem}`);
  process.exit(2);
}
let entries;
try {
  entries = parseParaphraseFile(JSON.parse(bytes.toString('utf8')), file);
} catch (err) {
  fail(`${err.message.startsWith(file) ? '' : `${file}: `}${err.message}`);
  process.exit(2);
}
try {
  const topics = await walkTopics(openSource(docs));
  const m = measureThresholds(topics, entries, max);
  if (values.json) {
    out(`${JSON.stringify({ docs, paraphraseFile: file, currentDefault: DEFAULT_MAX_HAMMING_DISTANCE, ...m }, null, 2)}\n`);
  } else {
    const pct = (x) => (x === null ? '   -  ' : `${(100 * x).toFixed(1).padStart(5)}%`);
    const stored = topics.reduce((n, t) => n + Object.values(t.index._embedded.chunks).reduce((k, g) => k + g.items.filter((i) => i.prompt_hashes).length, 0), 0);
    out(`${topics.length} topics, ${stored} chunks with prompt hashes; ${entries.length} questions, ${m.rows[0]?.paraphrases ?? 0} paraphrases measured\n`);
    for (const u of m.unmatchedQuestions) out(`  skipped (no stored hash): ${oneLine(u.topic)}: ${oneLine(u.question)}\n`);
    out('\n  d  hit-rate  precision  recall     F1    F0.5  other-topic chunks  paraphrases w/ other  cross-topic question pairs\n');
    for (const r of m.rows) {
      out(
        `${String(r.distance).padStart(3)}  ${pct(r.hitRate)}    ${pct(r.precision)}   ${pct(r.recall)}  ${pct(r.f1)}  ${pct(r.f05)}  ${String(r.otherTopicMatches).padStart(18)}  ${String(r.paraphrasesWithOtherTopicMatch).padStart(20)}  ${pct(r.crossTopicQuestionPairRate).padStart(26)}\n`,
      );
    }
    out(`\nbest F0.5 (precision-weighted) at distance ${m.suggested ?? '-'} (current default ${DEFAULT_MAX_HAMMING_DISTANCE})\n`);
  }
} catch (err) {
  fail(err.message);
  process.exit(1);
}

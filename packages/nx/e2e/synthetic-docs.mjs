// @ts-check
// Generated docs for the build benchmarks (bench-cached.mjs, bench-cold.mjs).

const WORDS = (
  'cache chunk token index stripe embedding schema parser section heading table fence list ' +
  'query vector baseline overlap window manifest offset source position config topic reader'
).split(' ');

/** Deterministic pseudo-random words, so every run of the bench sees the same docs. */
function words(/** @type {number} */ seed, /** @type {number} */ n) {
  let x = seed * 2654435761 >>> 0;
  const out = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(WORDS[x % WORDS.length]);
  }
  return out.join(' ');
}

/** About 3-4 KB of markdown: headings, prose, a list, a code block, a table. */
function topicMarkdown(/** @type {number} */ i) {
  const sections = [];
  for (let s = 0; s < 5; s++) {
    sections.push(
      `## Section ${s + 1} of topic ${i}\n\n` +
        `${words(i * 31 + s, 45)}. ${words(i * 17 + s, 30)}.\n\n` +
        (s % 2 === 0
          ? `- ${words(i + s, 6)}\n- ${words(i + s + 1, 7)}\n- ${words(i + s + 2, 5)}\n\n`
          : '```ts\n' + `const topic${i}s${s} = ${JSON.stringify(words(i + s, 4))};\n` + '```\n\n') +
        (s === 3 ? `| key | value |\n| --- | --- |\n| ${words(i, 2)} | ${words(i + 1, 3)} |\n\n` : ''),
    );
  }
  return `# Topic ${i}\n\n${words(i, 40)}.\n\n${sections.join('')}`;
}

/**
 * N generated topics spread over 10 section folders (nested like real docs): folder ->
 * golden-reference.md text. Deterministic, so every run of a bench sees the same docs.
 * @param {number} nTopics
 * @returns {Record<string, string>}
 */
export function syntheticTopics(nTopics) {
  /** @type {Record<string, string>} */
  const topics = {};
  for (let i = 0; i < nTopics; i++) {
    topics[`docs/synthetic/group-${String(i % 10).padStart(2, '0')}/topic-${String(i).padStart(3, '0')}`] = topicMarkdown(i);
  }
  return topics;
}

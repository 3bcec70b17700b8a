// The generated big topic for the inspector's test and benchmark: ~200 KB of markdown that
// chunks into ~500 chunks at maxTokens 128. Plain JS so the benchmark runs with node alone.

/**
 * Deterministic filler prose: the words cycle through a fixed vocabulary by a small LCG, so
 * the document is the same on every run and its keywords vary from section to section.
 */
const WORDS = (
  'serializer options context metadata converter property field value stream buffer reader writer ' +
  'schema contract resolver policy naming casing enum string number array object collection ' +
  'dictionary nullable default ignore include order extension data reference handling cycle ' +
  'polymorphism discriminator derived type attribute generator source mode fast path trimming ' +
  'startup memory allocation performance benchmark cache encoder escaping unicode culture'
).split(' ');

// A markdown document of `sections` sections; section 1 is an "API reference", so chunk 1 is
// a technical baseline and the page's technical order is exercised too.
/**
 * @param {number} [sections]
 * @returns {string}
 */
export function bigMarkdown(sections = 620) {
  let seed = 12345;
  const word = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return WORDS[Math.floor(seed / 65536) % WORDS.length]; // high bits: the low ones cycle fast
  };
  const sentence = (/** @type {number} */ n) => {
    const text = Array.from({ length: n }, word).join(' ');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  };
  const out = ['---', 'title: A generated big topic', '---', '', '# A generated big topic', '', `${sentence(14)} ${sentence(12)}`, ''];
  out.push('## API reference', '', '| Member | Kind | Notes |', '| --- | --- | --- |');
  for (let i = 0; i < 6; i++) out.push(`| \`${word()}${i}\` | ${word()} | ${sentence(5)} |`);
  out.push('');
  for (let s = 2; s < sections; s++) {
    out.push(`## Section ${s}: ${word()} ${word()}`, '');
    switch (s % 4) {
      case 0:
        out.push('```csharp', `var ${word()} = new ${word()}Options { ${word()} = true };`, `Serialize(${word()}, ${word()});`, '```', '', sentence(16));
        break;
      case 1:
        out.push(`- ${sentence(8)}`, `- ${sentence(9)}`, `- ${sentence(7)}`);
        break;
      default:
        out.push(`${sentence(18)} ${sentence(15)} ${sentence(12)}`);
    }
    out.push('');
  }
  return out.join('\n');
}


// Applies the metric helpers to a whole corpus: first the source structure
// (code blocks, tables, token counts), then one adapter's chunks per file.
import {
  findFencedCodeBlocks,
  findTables,
  intactFlags,
  isHeadlessTableChunk,
  isOddFenceChunk,
  locateAndCover,
  nonWhitespaceCount,
  offsetStatus,
  sizeStats,
} from './metrics.mjs';
import { countTokens } from './tokens.mjs';

const EXAMPLES = 3;

/** @param {string} s @param {number} [n] */
export function snippet(s, n = 160) {
  return s.length <= n ? s : `${s.slice(0, n - 40)} … ${s.slice(-30)}`;
}

/**
 * Source structure of the corpus: token counts, fenced code blocks and GFM
 * tables (with their token counts and whether they fit in `max`).
 * @param {import('./corpus.mjs').CorpusFile[]} files
 * @param {number} max
 */
export function analyzeCorpus(files, max) {
  const perFile = files.map((f) => {
    const code = findFencedCodeBlocks(f.text).map((b) => ({ ...b, tokens: countTokens(b.text) }));
    const tables = findTables(f.text, code).map((b) => ({ ...b, tokens: countTokens(b.text) }));
    return { tokens: countTokens(f.text), nonWs: nonWhitespaceCount(f.text), code, tables };
  });
  const code = perFile.flatMap((p) => p.code);
  const tables = perFile.flatMap((p) => p.tables);
  return {
    perFile,
    totals: {
      files: files.length,
      bytes: files.reduce((a, f) => a + f.bytes, 0),
      chars: files.reduce((a, f) => a + f.text.length, 0),
      tokens: perFile.reduce((a, p) => a + p.tokens, 0),
      nonWhitespaceChars: perFile.reduce((a, p) => a + p.nonWs, 0),
      codeBlocks: code.length,
      codeBlocksUnclosed: code.filter((b) => !b.closed).length,
      codeBlocksFitting: code.filter((b) => b.closed && b.tokens <= max).length,
      tables: tables.length,
      tablesFitting: tables.filter((b) => b.tokens <= max).length,
    },
  };
}

/** @param {number} n @param {number} d */
const pct = (n, d) => (d > 0 ? (100 * n) / d : Number.NaN);

/**
 * Every metric of one adapter, from its chunks (last pass) of every file.
 * @param {import('./corpus.mjs').CorpusFile[]} files
 * @param {ReturnType<typeof analyzeCorpus>} analysis
 * @param {import('./metrics.mjs').BenchChunk[][]} chunksPerFile
 * @param {{ max: number }} opts
 */
export function evaluate(files, analysis, chunksPerFile, { max }) {
  /** @type {number[]} */
  const tokens = [];
  let empty = 0;
  let oddFence = 0;
  let headless = 0;
  let codeIntact = 0;
  let codeOf = 0;
  let tablesIntact = 0;
  let tablesOf = 0;
  let withOffsets = 0;
  let splitUnit = 0;
  let offsetsChecked = 0;
  let offsetsExact = 0;
  let splitUnitExact = 0;
  let located = 0;
  let outOfOrder = 0;
  let lineCredited = 0;
  let nonWs = 0;
  let verbatimCovered = 0;
  let covered = 0;
  let reportedPresent = 0;
  let reportedMatch = 0;
  /** @type {number[]} */
  const embedTokens = [];
  let embedReportedPresent = 0;
  let embedReportedMatch = 0;
  /** @type {Record<string, object[]>} */
  const examples = {
    overMax: [],
    oddFence: [],
    headlessTable: [],
    brokenCodeBlock: [],
    brokenTable: [],
    offsetMismatch: [],
    notLocated: [],
    uncovered: [],
    reportedTokensMismatch: [],
  };
  /** @param {string} kind @param {object} ex */
  const note = (kind, ex) => {
    const list = examples[kind];
    if (list && list.length < EXAMPLES) list.push(ex);
  };

  files.forEach((file, fi) => {
    const source = file.text;
    const src = analysis.perFile[fi];
    if (!src) return;
    const all = chunksPerFile[fi] ?? [];
    const chunks = all.filter((c) => typeof c.text === 'string' && c.text.trim() !== '');
    empty += all.length - chunks.length;

    chunks.forEach((c, ci) => {
      const t = countTokens(c.text);
      tokens.push(t);
      if (t > max) note('overMax', { file: file.rel, chunk: ci, tokens: t, text: snippet(c.text) });
      if (isOddFenceChunk(c.text)) {
        oddFence++;
        note('oddFence', { file: file.rel, chunk: ci, splitUnit: !!c.splitUnit, text: snippet(c.text) });
      }
      if (isHeadlessTableChunk(c.text)) {
        headless++;
        note('headlessTable', { file: file.rel, chunk: ci, text: snippet(c.text) });
      }
      if (c.splitUnit) splitUnit++;
      const status = offsetStatus(source, c);
      if (status !== 'none') {
        withOffsets++;
        if (c.splitUnit) {
          if (status === 'exact') splitUnitExact++;
        } else {
          offsetsChecked++;
          if (status === 'exact') offsetsExact++;
          else
            note('offsetMismatch', {
              file: file.rel,
              chunk: ci,
              start: c.start,
              end: c.end,
              text: snippet(c.text),
              slice: snippet(source.slice(/** @type {number} */ (c.start), c.end ?? /** @type {number} */ (c.start) + c.text.length)),
            });
        }
      }
      if (typeof c.reportedTokens === 'number') {
        reportedPresent++;
        if (c.reportedTokens === t) reportedMatch++;
        else note('reportedTokensMismatch', { file: file.rel, chunk: ci, reported: c.reportedTokens, exact: t });
      }
      if (typeof c.embedText === 'string') {
        const e = countTokens(c.embedText);
        embedTokens.push(e);
        if (typeof c.embedTokens === 'number') {
          embedReportedPresent++;
          if (c.embedTokens === e) embedReportedMatch++;
        }
      }
    });

    const texts = chunks.map((c) => c.text);
    const fitCode = src.code.filter((b) => b.closed && b.tokens <= max);
    intactFlags(fitCode, texts).forEach((ok, bi) => {
      codeOf++;
      if (ok) codeIntact++;
      else {
        const b = /** @type {(typeof fitCode)[number]} */ (fitCode[bi]);
        note('brokenCodeBlock', { file: file.rel, start: b.start, tokens: b.tokens, text: snippet(b.text) });
      }
    });
    const fitTables = src.tables.filter((b) => b.tokens <= max);
    intactFlags(fitTables, texts).forEach((ok, bi) => {
      tablesOf++;
      if (ok) tablesIntact++;
      else {
        const b = /** @type {(typeof fitTables)[number]} */ (fitTables[bi]);
        note('brokenTable', { file: file.rel, start: b.start, tokens: b.tokens, text: snippet(b.text) });
      }
    });

    const cov = locateAndCover(source, chunks);
    located += cov.located;
    outOfOrder += cov.outOfOrder;
    lineCredited += cov.lineCredited;
    nonWs += cov.nonWs;
    verbatimCovered += cov.verbatimCovered;
    covered += cov.covered;
    for (const ci of cov.notLocated) {
      const c = /** @type {import('./metrics.mjs').BenchChunk} */ (chunks[ci]);
      if (!c.splitUnit) note('notLocated', { file: file.rel, chunk: ci, text: snippet(c.text) });
    }
    for (const g of cov.gaps) note('uncovered', { file: file.rel, start: g.start, text: snippet(source.slice(g.start, g.end), 120) });
  });

  const size = sizeStats(tokens, max);
  const embed = embedTokens.length ? sizeStats(embedTokens, max) : null;
  const n = size.chunks;
  return {
    chunks: n,
    emptyChunks: empty,
    size: { ...size, overMaxPct: pct(size.overMax, n) },
    structure: {
      oddFence: { count: oddFence, pct: pct(oddFence, n) },
      headlessTable: { count: headless, pct: pct(headless, n) },
      codeBlocksIntact: { intact: codeIntact, of: codeOf, pct: pct(codeIntact, codeOf) },
      tablesIntact: { intact: tablesIntact, of: tablesOf, pct: pct(tablesIntact, tablesOf) },
    },
    fidelity: {
      chunksWithOffsets: withOffsets,
      splitUnitChunks: splitUnit,
      splitUnitChunksExactAnyway: splitUnitExact,
      offsetsChecked,
      offsetsExact,
      offsetsExactPct: pct(offsetsExact, offsetsChecked),
      locatedVerbatim: located,
      locatedVerbatimPct: pct(located, n),
      locatedOutOfOrder: outOfOrder,
      lineCreditedChunks: lineCredited,
      nonWhitespaceChars: nonWs,
      coverageVerbatimPct: pct(verbatimCovered, nonWs),
      coveragePct: pct(covered, nonWs),
    },
    reported: {
      tokensPresent: reportedPresent,
      tokensMatchPct: pct(reportedMatch, reportedPresent),
      embed: embed && {
        chunks: embed.chunks,
        mean: embed.mean,
        p95: embed.p95,
        max: embed.max,
        overMax: embed.overMax,
        reportedPresent: embedReportedPresent,
        reportedMatchPct: pct(embedReportedMatch, embedReportedPresent),
      },
    },
    examples,
  };
}

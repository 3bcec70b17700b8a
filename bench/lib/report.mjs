// Renders a results object (the shape run.mjs writes to latest.json) as markdown.

export const OURS = 'chunkyard-semantic';
export const CHONKIE = 'chonkie-recursive-cl100k';

const int = (/** @type {number} */ n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const fix = (/** @type {number} */ n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
const countPct = (/** @type {{ count: number, pct: number }} */ x) => `${int(x.count)} (${fix(x.pct)}%)`;

/** @param {string[]} head @param {string[][]} rows */
function table(head, rows) {
  const align = head.map((_, i) => (i === 0 ? '---' : '---:'));
  return [head, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** Speed ratios are given against this adapter (× its MB/s). */
const REF = 'chunkyard-semantic';

/** @param {any} results @returns {string | null} the headline throughput ratio, if both ran */
export function ratioLine(results) {
  const c = results.comparison;
  if (!c) {
    const ours = results.adapters.find((/** @type {any} */ a) => a.name === OURS);
    if (ours && ours.status !== 'ok') return `chunkyard: not measured (${ours.status}: ${ours.error})`;
    return null;
  }
  return (
    `**chunkyard is ${c.ratio.toFixed(2)}× Chonkie's throughput** ` +
    `(${c.oursMBps.toFixed(2)} MB/s vs ${c.chonkieMBps.toFixed(2)} MB/s, medians of ${results.settings.runs} interleaved passes).`
  );
}

/** @param {string | undefined} mode settings.isolation (absent in results from before it existed) */
function isolationText(mode) {
  if (mode === 'fork') return '; each adapter in its own child process (fork)';
  if (mode === 'in-process') return '; all adapters in one process (--in-process), so they share JIT state';
  return '';
}

/** @param {any} results @returns {string} */
export function renderMarkdown(results) {
  const { machine: m, corpus: c, settings: s } = results;
  const ok = results.adapters.filter((/** @type {any} */ a) => a.status === 'ok');
  const la = (/** @type {number[]} */ l) => l.map((x) => x.toFixed(2)).join(' / ');
  const out = [];
  out.push(`## chunkyard bench: ${results.date.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`);
  out.push('');
  out.push(`- **Command:** \`${results.command}\``);
  out.push(
    `- **Machine:** ${m.cpus} × ${m.cpuModel}, ${fix(m.totalMemGiB)} GiB RAM, ${m.platform} ${m.arch}; ` +
      `Node ${m.node}${m.exposeGc ? ' (full GC before every pass)' : ' (no --expose-gc: passes run without forced GC)'}`,
  );
  out.push(`- **Load average (1 / 5 / 15 min):** ${la(m.loadavgStart)} at start, ${la(m.loadavgEnd)} at end`);
  if (results.git) out.push(`- **Git:** ${results.git.head}${results.git.dirty ? ' (uncommitted changes)' : ''}`);
  out.push(
    `- **Corpus:** ${c.label}: ${int(c.files)} files, ${fix(c.bytes / 1e6, 2)} MB (${int(c.bytes)} bytes UTF-8), ` +
      `${int(c.tokens)} cl100k tokens; ${int(c.codeBlocks)} fenced code blocks (${int(c.codeBlocksFitting)} fit in ${s.maxTokens} tokens` +
      `${c.codeBlocksUnclosed ? `, ${c.codeBlocksUnclosed} unclosed` : ''}), ${int(c.tables)} GFM tables (${int(c.tablesFitting)} fit)`,
  );
  out.push(
    `- **Settings:** max ${s.maxTokens} tokens, target ${s.targetTokens}; ${s.warmup} warm-up + ${s.runs} timed passes per adapter, ` +
      `interleaved (${ok.map((/** @type {any} */ a) => a.name).join(', ') || 'none'}, repeated)${isolationText(s.isolation)}`,
  );
  for (const a of ok) {
    if (a.settings?.loadedFrom) {
      const sha = a.settings.buildSha256 ? ` (sha256 ${a.settings.buildSha256})` : '';
      out.push(`- **${a.name}:** loaded from \`${a.settings.loadedFrom}\`${sha}`);
    }
  }
  out.push('');
  const line = ratioLine(results);
  if (line) out.push(line, '');

  if (ok.length > 0) {
    out.push(`### Speed and memory (median of ${s.runs} passes after ${s.warmup} warm-up)`);
    // Throughput ratios against our default chunker: machine-independent where absolute times are not.
    const ref = ok.find((/** @type {any} */ a) => a.name === REF);
    out.push(
      table(
        ['adapter', 'peer@version', 'median ms', 'min–max ms', 'MB/s', `× ${REF}`, 'peak RSS MiB', 'Δ RSS MiB'],
        ok.map((/** @type {any} */ a) => [
          a.name,
          `${a.peer}@${a.version}`,
          `${int(a.timing.medianMs)}${a.timing.passesMs.length < s.runs ? ` (${a.timing.passesMs.length} run${a.timing.passesMs.length === 1 ? '' : 's'})` : ''}`,
          `${int(a.timing.minMs)}–${int(a.timing.maxMs)}`,
          fix(a.timing.mbPerSec, 2),
          ref ? fix(a.timing.mbPerSec / ref.timing.mbPerSec, 2) : 'n/a',
          a.rss ? int(a.rss.peakMiB) : 'n/a',
          a.rss ? int(a.rss.deltaMiB) : 'n/a',
        ]),
      ),
    );
    out.push('');
    out.push(
      results.baselineRss
        ? `Peak RSS: one child process per adapter (corpus + setup + one pass), \`process.resourceUsage().maxRSS\`; ` +
            `Δ is over a baseline child that only loads the corpus and the cl100k tokenizer (${int(results.baselineRss.peakMiB)} MiB).`
        : 'Peak RSS: not measured (--no-rss).',
    );
    out.push('');

    out.push(`### Size discipline (exact cl100k tokens per chunk; max ${s.maxTokens})`);
    out.push(
      table(
        ['adapter', 'chunks', 'mean tok', 'p50', 'p95', 'max', 'chunks > max'],
        ok.map((/** @type {any} */ a) => {
          const z = a.metrics.size;
          return [a.name, int(z.chunks), int(z.mean), int(z.p50), int(z.p95), int(z.max), `${int(z.overMax)} (${fix(z.overMaxPct)}%)`];
        }),
      ),
    );
    out.push('');

    out.push('### Structure integrity');
    const first = ok[0].metrics.structure;
    out.push(
      table(
        [
          'adapter',
          'odd-fence chunks',
          'headless-table chunks',
          `code blocks intact % (of ${int(first.codeBlocksIntact.of)} that fit)`,
          `tables intact % (of ${int(first.tablesIntact.of)} that fit)`,
        ],
        ok.map((/** @type {any} */ a) => {
          const st = a.metrics.structure;
          return [
            a.name,
            countPct(st.oddFence),
            countPct(st.headlessTable),
            fix(st.codeBlocksIntact.pct),
            fix(st.tablesIntact.pct),
          ];
        }),
      ),
    );
    out.push('');

    out.push('### Fidelity');
    out.push(
      table(
        ['adapter', 'offsets exact %', 'splitUnit chunks (excluded)', 'located verbatim %', 'coverage % (verbatim)', 'coverage %'],
        ok.map((/** @type {any} */ a) => {
          const f = a.metrics.fidelity;
          const offsets =
            f.chunksWithOffsets === 0 ? 'no offsets' : `${fix(f.offsetsExactPct)} (${int(f.offsetsExact)}/${int(f.offsetsChecked)})`;
          return [
            a.name,
            offsets,
            int(f.splitUnitChunks),
            fix(f.locatedVerbatimPct),
            fix(f.coverageVerbatimPct, 2),
            fix(f.coveragePct, 2),
          ];
        }),
      ),
    );
    out.push('');
    out.push(
      'Coverage is of non-whitespace source characters. "verbatim" counts chunks at exact offsets or found with indexOf; ' +
        '"coverage %" adds, for splitUnit chunks, their lines found inside their own offset range.',
    );
    out.push('');

    const withReported = ok.filter((/** @type {any} */ a) => a.metrics.reported.tokensPresent > 0 || a.metrics.reported.embed);
    if (withReported.length > 0) {
      out.push('### Counts reported by the tool (checked against the harness)');
      out.push(
        table(
          ['adapter', 'reported tokens exact %', 'embed mean tok', 'embed p95', 'embed max', 'embed > max', 'reported embed tokens exact %'],
          withReported.map((/** @type {any} */ a) => {
            const r = a.metrics.reported;
            const e = r.embed;
            return [
              a.name,
              r.tokensPresent > 0 ? fix(r.tokensMatchPct) : 'n/a',
              e ? int(e.mean) : 'n/a',
              e ? int(e.p95) : 'n/a',
              e ? int(e.max) : 'n/a',
              e ? int(e.overMax) : 'n/a',
              e && e.reportedPresent > 0 ? fix(e.reportedMatchPct) : 'n/a',
            ];
          }),
        ),
      );
      out.push('');
    }
  }

  const bad = results.adapters.filter((/** @type {any} */ a) => a.status !== 'ok');
  if (bad.length > 0) {
    out.push('### Not measured');
    for (const a of bad) out.push(`- ${a.name}: ${a.status}: ${a.error}`);
    out.push('');
  }
  out.push('Metric definitions: bench/README.md. Examples of each defect kind are in the JSON (`adapters[].metrics.examples`).');
  return `${out.join('\n')}\n`;
}

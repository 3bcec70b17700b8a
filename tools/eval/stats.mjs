// Paired comparison of two configurations over the same questions.

/**
 * Mean paired difference a − b with a 95% percentile bootstrap CI (mulberry32 PRNG,
 * fixed seed: the same inputs always give the same interval).
 * @param {readonly number[]} a
 * @param {readonly number[]} b
 */
export function pairedBootstrap(a, b, resamples = 2000) {
  if (a.length !== b.length) throw new Error(`paired samples differ in length: ${a.length} and ${b.length}`);
  const d = a.map((x, i) => x - /** @type {number} */ (b[i]));
  const n = d.length;
  let seed = 0x9e3779b9;
  const rand = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const means = [];
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += /** @type {number} */ (d[Math.floor(rand() * n)]);
    means.push(s / n);
  }
  means.sort((x, y) => x - y);
  return {
    mean: d.reduce((x, y) => x + y, 0) / Math.max(1, n),
    lo: means[Math.floor(0.025 * resamples)] ?? 0,
    hi: means[Math.ceil(0.975 * resamples) - 1] ?? 0,
    better: d.filter((x) => x > 1e-12).length,
    worse: d.filter((x) => x < -1e-12).length,
    equal: d.filter((x) => Math.abs(x) <= 1e-12).length,
  };
}

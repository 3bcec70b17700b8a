#!/usr/bin/env node
// @ts-check
// Cold and no-op `nx run-many -t index` over N generated topics, against the Nx floor measured
// in the same run: a bare Nx workspace whose task graph is ours, task for task (same projects,
// same targets, same dependsOn), where every task is a trivial cached shell command writing
// one small file (and `nx:noop` stays `nx:noop`). The ratio is what chunkyard's own work and
// the plugin add on top of what Nx costs for that many tasks.
//
//   node packages/nx/e2e/bench-cold.mjs [--topics 200] [--cold-runs 1] [--runs 5] [--daemon] [--floor-files] [--keep]
//   npm run bench:build -- --topics 200
//
// Every timed run, in both workspaces, is exactly
//   CI=true NX_DAEMON=false NX_NO_CLOUD=true NX_ISOLATE_PLUGINS=false \
//     node_modules/.bin/nx run-many -t index --outputStyle=static  </dev/null
// timed from spawn to exit. "Cold": an empty Nx cache and workspace data (`.nx` deleted), no
// embedding cache and no outputs of an earlier run (git-ignored files under the docs root, the
// floor's `*.out`), as on a fresh CI checkout; `--keep-outputs` leaves the earlier run's outputs
// in place, as on a developer's machine (the tools then also replace and remove the old output
// folders, and every removed folder costs an rmdir: about 3 ms each on this VM's ext4, mounted
// with `discard`, against 0.07 ms for a mkdir); the tool builds of chunkyard's workspace are built (and cached) before the
// clock starts, as a user's tools are installed before theirs does, and the floor's mirror
// tasks of those builds are run first the same way. "No-op": every task from the cache, after
// one warm-up run; ours and the floor alternate, run by run. `--daemon` adds no-op runs with
// NX_DAEMON=true (a developer's machine outside a container), where Nx restores a cache hit's
// outputs only when they differ from what is on disk; the daemons are stopped at the end.
// `--floor-files` adds a third workspace to the no-op runs: the floor, but every task that has
// outputs in ours writes (by copying them from ours) exactly the files ours' task wrote, so a
// cache hit restores the same files, bytes and folders as ours. Without the daemon Nx removes
// and copies every output file of every cache hit (task-orchestrator.js,
// shouldCopyOutputsFromCacheBatch: "No daemon → can't verify on-disk outputs, always copy"), so
// ours against this row is what chunkyard adds beyond the restores its output files cost.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { syntheticTopics } from './synthetic-docs.mjs';
import { createTempWorkspace, repoRoot, runNx, workspaceAt } from './temp-workspace.mjs';

const USAGE = 'usage: node packages/nx/e2e/bench-cold.mjs [--topics 200] [--cold-runs 1] [--runs 5] [--daemon] [--floor-files] [--keep-outputs] [--keep]';
/** @type {{ topics: string, 'cold-runs': string, runs: string, keep: boolean, 'keep-outputs': boolean, daemon: boolean, 'floor-files': boolean, help: boolean }} */
let values;
try {
  ({ values } = /** @type {any} parseArgs's inferred type; the table below fixes it */ (parseArgs({
    options: {
      topics: { type: 'string', default: '200' },
      'cold-runs': { type: 'string', default: '1' },
      runs: { type: 'string', default: '5' },
      keep: { type: 'boolean', default: false },
      'keep-outputs': { type: 'boolean', default: false },
      daemon: { type: 'boolean', default: false },
      'floor-files': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })));
} catch (err) {
  console.error(`bench-cold: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(`${USAGE}\n\nCold and no-op nx run-many -t index over N generated topics against a bare Nx workspace\nwith the same task graph (issue 16, goals 2 and 3); see the comment at the top of this file.`);
  process.exit(0);
}
const nTopics = Number(values.topics);
const coldRuns = Number(values['cold-runs']);
const nRuns = Number(values.runs);
for (const [name, v, min] of /** @type {const} */ ([['--topics', nTopics, 1], ['--cold-runs', coldRuns, 0], ['--runs', nRuns, 0]])) {
  if (!Number.isInteger(v) || v < min) {
    console.error(`bench-cold: ${name} must be a whole number >= ${min}\n${USAGE}`);
    process.exit(2);
  }
}
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const fmt = (/** @type {number} */ ms) => (ms / 1000).toFixed(2);
const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** @typedef {import('./temp-workspace.mjs').TempWorkspace} TempWorkspace */

/**
 * `nx run-many` with the bench's flags; fails loudly unless every task succeeded.
 * @param {TempWorkspace} ws @param {string[]} args
 * @returns {{ ms: number, ran: number, cached: number, total: number }}
 */
function run(ws, args) {
  const runJson = join(ws.cacheDir, 'run.json');
  rmSync(runJson, { force: true });
  const r = runNx(ws, ['run-many', ...args, '--outputStyle=static'], 3_600_000);
  if (r.status !== 0) throw new Error(`nx run-many ${args.join(' ')} in ${ws.root} exited ${r.status}:\n${r.output.slice(-4000)}`);
  /** @type {{ tasks: { taskId: string, cacheStatus: string }[] }} */
  const record = JSON.parse(readFileSync(runJson, 'utf8'));
  const ran = record.tasks.filter((t) => t.cacheStatus === 'cache-miss').length;
  return { ms: r.ms, ran, cached: record.tasks.length - ran, total: record.tasks.length };
}

/**
 * Forget everything Nx knows (cache and workspace data), and the vectors; unless
 * --keep-outputs, also every output of an earlier run (ours: the git-ignored files under
 * docs/; the floor: its `*.out` files and `o/`).
 * @param {TempWorkspace} ws
 */
function forget(ws) {
  rmSync(join(ws.root, '.nx'), { recursive: true, force: true });
  rmSync(join(ws.root, '.embedding-cache'), { recursive: true, force: true });
  if (!values['keep-outputs']) removeOutputs(ws);
}

/** Every output of an earlier run. @param {TempWorkspace} ws */
function removeOutputs(ws) {
  if (existsSync(join(ws.root, '.git'))) {
    const r = spawnSync('git', ['clean', '-fdXq', 'docs'], { cwd: ws.root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git clean in ${ws.root}: ${r.stderr}`);
  } else {
    rmSync(join(ws.root, 'o'), { recursive: true, force: true });
    const walk = (/** @type {string} */ dir) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name.endsWith('.out')) rmSync(join(dir, e.name));
      }
    };
    if (existsSync(join(ws.root, 'p'))) walk(join(ws.root, 'p'));
  }
}

/**
 * The floor: a bare Nx workspace (nx.json with no plugin, a project.json per project) whose
 * task graph mirrors `graph`, every target a trivial cached command.
 *
 * With `copyOutputsFrom` (the root of ours, after a build), each target that has outputs there
 * instead copies them from it into `o/<the same path>` (git-ignored, as ours' outputs are) and
 * declares them as its outputs: the same files and folders per task, so a cache hit restores
 * what ours' does.
 * @param {{ nodes: Record<string, { data: { root: string, targets?: Record<string, { executor?: string, options?: { noop?: boolean }, dependsOn?: unknown[], outputs?: string[] }> } }> }} graph
 * @param {string} [copyOutputsFrom]
 * @returns {TempWorkspace}
 */
function floorWorkspace(graph, copyOutputsFrom) {
  const root = mkdtempSync(join(tmpdir(), copyOutputsFrom ? 'chunkyard-floor-files-' : 'chunkyard-floor-'));
  writeFileSync(join(root, 'nx.json'), JSON.stringify({ neverConnectToCloud: true, analytics: false }, null, 2));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'floor', private: true, devDependencies: { nx: '22.7.12' } }, null, 2));
  writeFileSync(join(root, '.gitignore'), '/.nx\n*.out\n/o\n');
  mkdirSync(join(root, 'node_modules', '@nx'), { recursive: true });
  symlinkSync(join(repoRoot, 'node_modules', 'nx'), join(root, 'node_modules', 'nx'));
  mkdirSync(join(root, 'node_modules', '.bin'));
  symlinkSync('../nx/dist/bin/nx.js', join(root, 'node_modules', '.bin', 'nx'));
  for (const name of ['nx-linux-x64-gnu', 'devkit']) {
    try {
      symlinkSync(join(repoRoot, 'node_modules', '@nx', name), join(root, 'node_modules', '@nx', name));
    } catch {
      // not installed for this platform
    }
  }
  for (const [name, node] of Object.entries(graph.nodes)) {
    const dir = join(root, 'p', node.data.root);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'src.txt'), `${name}\n`);
    /** @type {Record<string, object>} */
    const targets = {};
    for (const [t, cfg] of Object.entries(node.data.targets ?? {})) {
      const dependsOn = cfg.dependsOn ?? [];
      // ours' outputs of this target, workspace-relative, that exist
      const copied = copyOutputsFrom
        ? (cfg.outputs ?? [])
            .map((o) => o.replace('{projectRoot}', node.data.root).replace(/^\{workspaceRoot\}\//, ''))
            .filter((rel) => existsSync(join(copyOutputsFrom, rel)))
        : [];
      targets[t] =
        cfg.executor === 'nx:noop' || cfg.options?.noop === true
          ? { executor: 'nx:noop', cache: true, inputs: [], outputs: [], dependsOn }
          : copied.length
            ? {
                command: copied.map((rel) => `rm -rf o/${rel} && mkdir -p ${dirname(`o/${rel}`)} && cp -R ${join(copyOutputsFrom ?? '', rel)} o/${rel}`).join(' && '),
                cache: true,
                inputs: ['{projectRoot}/src.txt', { externalDependencies: [] }],
                outputs: copied.map((rel) => `{workspaceRoot}/o/${rel}`),
                dependsOn,
              }
            : {
                command: `echo ${t} > {projectRoot}/${t}.out`,
                cache: true,
                inputs: ['{projectRoot}/src.txt', { externalDependencies: [] }],
                outputs: [`{projectRoot}/${t}.out`],
                dependsOn,
              };
    }
    writeFileSync(join(dir, 'project.json'), JSON.stringify({ name, root: `p/${node.data.root}`, targets }, null, 2));
  }
  return workspaceAt(root);
}

const ours = createTempWorkspace({ prefix: 'chunkyard-bench-', topics: syntheticTopics(nTopics) });
/** @type {TempWorkspace | undefined} */
let floor;
/** @type {TempWorkspace | undefined} */
let floorFiles;
try {
  const graphFile = join(ours.root, '.nx', 'graph.json');
  const g = runNx(ours, ['graph', `--file=${graphFile}`]);
  if (g.status !== 0) throw new Error(`nx graph failed:\n${g.output}`);
  const graph = JSON.parse(readFileSync(graphFile, 'utf8')).graph;
  floor = floorWorkspace(graph);
  console.log(`ours: ${ours.root}\nfloor: ${floor.root}`);
  /** @type {[string, TempWorkspace][]} */
  const both = [['ours', ours], ['floor', floor]];

  /** @type {Record<string, number[]>} */
  const cold = { ours: [], floor: [] };
  /** @type {Record<string, number>} */
  const tasks = {};
  for (let c = 0; c < coldRuns; c++) {
    for (const [label, ws] of both) {
      forget(ws);
      run(ws, ['-t', 'build']); // the tools (ours) or their mirror (floor), before the clock
      // The deletions' journal commit (and, on a filesystem mounted with `discard`, as here,
      // the discards of every freed block) happens now, not inside the timed run.
      spawnSync('sync');
      const loadBefore = load();
      const r = run(ws, ['-t', 'index']);
      cold[label]?.push(r.ms);
      tasks[label] = r.total;
      console.log(`cold ${label} #${c + 1}: ${fmt(r.ms)} s, ${r.ran} ran, ${r.cached} cached, ${r.total} tasks (load ${loadBefore})`);
    }
  }
  if (values['floor-files']) {
    // Ours' outputs must exist to be copied: built here when no cold run built them.
    if (coldRuns === 0) for (const t of ['build', 'index']) run(ours, ['-t', t]);
    floorFiles = floorWorkspace(graph, ours.root);
    for (const t of ['build', 'index']) run(floorFiles, ['-t', t]); // fills its cache, not timed
    console.log(`floor with ours' output files: ${floorFiles.root}`);
    both.push(['floor-files', floorFiles]);
  }
  for (const [label, ws] of both) {
    // Warm-up, not counted. Right after a cold run every task must come from the cache: a task
    // that reruns here was cached under a hash the next run does not compute.
    const r = run(ws, ['-t', 'index']);
    tasks[label] ??= r.total;
    // With --cold-runs 0 a cache starts empty (ours' not with --floor-files, which built it):
    // its first run fills it.
    const filled = coldRuns > 0 || label === 'floor-files' || (label === 'ours' && values['floor-files']);
    console.log(`first rerun ${label}: ${r.ran} ran, ${r.cached} cached${r.ran && filled ? '  <-- cache not exact' : ''}`);
  }
  /** @type {Record<string, number[]>} */
  const noop = { ours: [], floor: [], 'floor-files': [] };
  for (let i = 0; i < nRuns; i++) {
    for (const [label, ws] of both) {
      const r = run(ws, ['-t', 'index']);
      if (r.ran !== 0) throw new Error(`no-op run ${label} #${i + 1}: ${r.ran} tasks ran`);
      noop[label]?.push(r.ms);
    }
  }
  /** @type {Record<string, number[]>} */
  const daemon = { ours: [], floor: [], 'floor-files': [] };
  if (values.daemon) {
    for (const [, ws] of both) ws.env.NX_DAEMON = 'true';
    try {
      for (const [, ws] of both) for (let w = 0; w < 2; w++) run(ws, ['-t', 'index']); // start the daemon, warm it
      for (let i = 0; i < nRuns; i++) {
        for (const [label, ws] of both) {
          const r = run(ws, ['-t', 'index']);
          if (r.ran !== 0) throw new Error(`daemon no-op run ${label} #${i + 1}: ${r.ran} tasks ran`);
          daemon[label]?.push(r.ms);
        }
      }
    } finally {
      for (const [, ws] of both) runNx(ws, ['daemon', '--stop']);
    }
  }
  const row = (/** @type {string} */ what, /** @type {Record<string, number[]>} */ t, peer = 'floor') => {
    const o = median(t.ours ?? []);
    const f = median(t[peer] ?? []);
    return `| ${what} | ${fmt(o)} s | ${fmt(f)} s | ${(o / f).toFixed(2)}× |`;
  };
  console.log(`\n${nTopics} topics, ${tasks.ours} tasks (floor ${tasks.floor}); load at the end ${load()}; medians`);
  console.log('| run | ours | floor | ratio |\n| --- | ---: | ---: | ---: |');
  console.log(row(`cold${values['keep-outputs'] ? ' over the previous outputs' : ', no previous outputs'} (${coldRuns} run${coldRuns === 1 ? '' : 's'} each)`, cold));
  console.log(row(`no-op (${nRuns} runs each)`, noop));
  if (values.daemon) console.log(row(`no-op, NX_DAEMON=true (${nRuns} runs each)`, daemon));
  if (floorFiles) {
    console.log(row(`no-op against the floor with ours' output files (${nRuns} runs each)`, noop, 'floor-files'));
    if (values.daemon) console.log(row(`no-op, NX_DAEMON=true, against the floor with ours' output files`, daemon, 'floor-files'));
  }
  for (const [label, t] of /** @type {const} */ ([['no-op', noop], ['daemon no-op', daemon]])) {
    const all = Object.entries(t).filter(([, xs]) => xs.length);
    if (all.length) console.log(`all ${label}: ${all.map(([k, xs]) => `${k} ${xs.map(fmt).join(', ')}`).join('; ')}`);
  }
} finally {
  if (!values.keep) {
    rmSync(ours.root, { recursive: true, force: true });
    if (floor) rmSync(floor.root, { recursive: true, force: true });
    if (floorFiles) rmSync(floorFiles.root, { recursive: true, force: true });
  }
}

// Topics nested in topics, D deep (docs/t/golden-reference.md, docs/t/t/golden-reference.md,
// ...). Every folder's `index` listed every ancestor's index-json by name: D names up to D long
// in each of D projects, so the graph was D^3 (22 MB of dependsOn of 31 MB at D = 400, where the
// marker paths hold 170 KB). Sizes and counts here, not times: the output must stay a bounded
// multiple of the input, and `index` must still wait for exactly what it waited for.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

type DependsOn = string | { projects: string[]; target: string };
interface Target {
  dependsOn: DependsOn[];
}
interface Project {
  name: string;
  root: string;
  targets: Record<string, Target>;
}
type ToolLocation = { kind: 'installed'; packageName: string } | { kind: 'workspace'; packageName: string; project: string; buildInputs?: unknown[] };
type Results = [string, { projects: Record<string, Project> }][];
interface PluginCore {
  TOOL_PACKAGES: readonly string[];
  normalizeOptions(o: unknown): object;
  createProjects(files: string[], ctx: { options: object; tools: Record<string, ToolLocation> }): Results;
  docsTree(topicRoots: string[], docsRoot: string): Map<string, string[]>;
}
interface PluginEdge {
  createNodesV2: [string, (files: string[], options: unknown, context: { workspaceRoot: string; nxJsonConfiguration?: unknown }) => Results];
}
const require = createRequire(import.meta.url);
const core = require('./plugin.cjs') as PluginCore;
const edge = require('./index.cjs') as PluginEdge;

const installed = Object.fromEntries(core.TOOL_PACKAGES.map((p) => [p, { kind: 'installed', packageName: p } as ToolLocation]));
const workspace = Object.fromEntries(
  core.TOOL_PACKAGES.map((p) => [p, { kind: 'workspace', packageName: p, project: p.replace('@chunkyard/', ''), buildInputs: [`{workspaceRoot}/apps/${p.replace('@chunkyard/', '')}/src/**/*.ts`] } as ToolLocation]),
);

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

/** A workspace on disk with topics nested `depth` deep under docs/, and what Nx would hand the plugin. */
function nestedWorkspace(depth: number): { root: string; files: string[] } {
  const root = mkdtempSync(join(tmpdir(), 'chunkyard-nx-deep-'));
  temps.push(root);
  writeFileSync(join(root, 'nx.json'), '{}');
  const files = ['nx.json'];
  let dir = 'docs';
  for (let i = 0; i < depth; i++) {
    dir += '/t';
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, 'golden-reference.md'), '# T\n\nA nested topic.\n');
    files.push(`${dir}/golden-reference.md`);
  }
  return { root, files };
}

function allProjects(results: Results): Project[] {
  return results.flatMap(([, r]) => Object.values(r.projects));
}

/** Names of docs projects written in dependsOn entries (a tool's build is not one), over every target of every project. */
function namesInDependsOn(projects: Project[]): number {
  let n = 0;
  for (const p of projects) for (const t of Object.values(p.targets)) for (const d of t.dependsOn) if (typeof d !== 'string' && d.target !== 'build') n += d.projects.length;
  return n;
}

describe('@chunkyard/nx: topics nested D deep', () => {
  it('createNodesV2 writes a configuration a bounded multiple of the marker paths, with O(1) dependsOn names per project', () => {
    const measured = [100, 400].map((depth) => {
      const { root, files } = nestedWorkspace(depth);
      const results = edge.createNodesV2[1](files, {}, { workspaceRoot: root, nxJsonConfiguration: {} });
      const projects = allProjects(results);
      expect(projects).toHaveLength(depth + 1); // each topic and the docs root
      const inputChars = files.reduce((n, f) => n + f.length, 0);
      const names = namesInDependsOn(projects);
      // A folder's index-json names its children, its index its parent and the root.
      expect(names, `depth ${depth}`).toBeLessThanOrEqual(3 * projects.length);
      return JSON.stringify(results).length / inputChars;
    });
    // Each project names its own folder, so output per input character is a constant (falling,
    // as the per-project constant parts weigh less). Listing every ancestor made it grow with
    // the depth: 103 at D = 100, 182 at D = 400.
    const [at100, at400] = measured as [number, number];
    expect(at400).toBeLessThanOrEqual(at100);
  }, 60_000);
});

// Folder names: plain, glob characters and spaces (the plugin escapes them in globs), never `-`
// (docs/a-b and docs/a/b would both be topic-a-b, which the plugin refuses by design).
const segment = fc.constantFrom('a', 'b', 'c', 'v[2]', 'x (y)', 'a.b', 'ü');
const topicDir = fc.array(segment, { minLength: 0, maxLength: 12 }).map((parts) => ['docs', ...parts].join('/'));
// Chains as well as bushes: a chain is every prefix of one deep path.
const chain = fc.array(segment, { minLength: 1, maxLength: 30 }).map((parts) => parts.map((_, i) => ['docs', ...parts.slice(0, i + 1)].join('/')));
const topicSet = fc
  .tuple(fc.array(topicDir, { minLength: 1, maxLength: 25 }), fc.array(chain, { maxLength: 2 }))
  .map(([dirs, chains]) => [...new Set([...dirs, ...chains.flat()])]);

type TaskId = string;

/** Every task `start` waits for, transitively, itself included, under the given dependsOn. */
function closure(start: TaskId, depsOf: (task: TaskId) => TaskId[]): Set<TaskId> {
  const seen = new Set<TaskId>([start]);
  const stack = [start];
  for (let t = stack.pop(); t !== undefined; t = stack.pop()) {
    for (const d of depsOf(t)) {
      if (!seen.has(d)) {
        seen.add(d);
        stack.push(d);
      }
    }
  }
  return seen;
}

describe('@chunkyard/nx: index waits for every ancestor, property', () => {
  it('nx run <folder>:index runs the same work as when index listed every ancestor\'s index-json', () => {
    fc.assert(
      fc.property(topicSet, fc.boolean(), fc.boolean(), fc.nat(), (dirs, llmsTxt, inWorkspace, order) => {
        const files = dirs.map((d) => `${d}/golden-reference.md`);
        // The plugin sorts what Nx hands it; hand it in any order.
        const shift = files.length ? order % files.length : 0;
        const given = [...files.slice(shift), ...files.slice(0, shift)];
        const results = core.createProjects(given, { options: core.normalizeOptions({ llmsTxt }), tools: inWorkspace ? workspace : installed });
        const projects = allProjects(results);
        const byRoot = new Map(projects.map((p) => [p.root, p]));
        const byName = new Map(projects.map((p) => [p.name, p]));
        expect(byRoot.size).toBe(projects.length); // each folder described once
        // Every folder between a topic and the root is a project (a topic or a section).
        for (const d of dirs) for (let x = d; ; x = posix.dirname(x)) {
          expect(byRoot.has(x), x).toBe(true);
          if (x === 'docs') break;
        }
        expect(namesInDependsOn(projects)).toBeLessThanOrEqual(3 * projects.length);

        const split = (task: TaskId): [string, string] => {
          const i = task.lastIndexOf(':');
          return [task.slice(0, i), task.slice(i + 1)];
        };
        const generated = (task: TaskId): TaskId[] => {
          const [name, target] = split(task);
          const t = byName.get(name)?.targets[target];
          if (!t) return []; // a tool's build: outside the docs tree
          return t.dependsOn.flatMap((d) => (typeof d === 'string' ? [`${name}:${d}`] : d.projects.map((p) => `${p}:${d.target}`)));
        };
        // The meaning before: a folder's index waited for its own index-json, every ancestor's
        // index-json and the root's llms-txt; every other target as generated.
        const rootName = (byRoot.get('docs') as Project).name;
        const reference = (task: TaskId): TaskId[] => {
          const [name, target] = split(task);
          if (target !== 'index') return generated(task);
          const p = byName.get(name) as Project;
          const above: TaskId[] = [];
          for (let x = p.root; x !== 'docs'; ) {
            x = posix.dirname(x);
            above.push(`${(byRoot.get(x) as Project).name}:index-json`);
          }
          return [`${name}:index-json`, ...above, ...(llmsTxt ? [`${rootName}:llms-txt`] : [])];
        };
        for (const p of projects) {
          const now = closure(`${p.name}:index`, generated);
          const before = closure(`${p.name}:index`, reference);
          // The same work; the index tasks (which run nothing) of the ancestors join it.
          const work = (s: Set<TaskId>) => [...s].filter((t) => !t.endsWith(':index')).sort();
          expect(work(now), p.root).toEqual(work(before));
          const ancestorsIndex = [...now].filter((t) => t.endsWith(':index')).map((t) => (byName.get(split(t)[0]) as Project).root);
          for (const r of ancestorsIndex) expect(r === p.root || p.root.startsWith(`${r}/`), `${p.root} waits for ${r}:index`).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('docsTree links each folder to the same children in whatever order the topics come', () => {
    fc.assert(
      fc.property(topicSet, fc.nat(), (dirs, order) => {
        const shift = order % dirs.length;
        const given = [...dirs.slice(shift), ...dirs.slice(0, shift)].reverse();
        // Walk every chain to the root, as the plugin did before it stopped at a known folder.
        const naive = new Map<string, Set<string>>();
        for (const d of dirs) {
          if (!naive.has(d)) naive.set(d, new Set());
          for (let x = d; x !== 'docs'; x = posix.dirname(x)) {
            const parent = posix.dirname(x);
            if (!naive.has(parent)) naive.set(parent, new Set());
            naive.get(parent)!.add(x);
          }
        }
        const expected = Object.fromEntries([...naive].map(([d, c]) => [d, [...c].sort()]));
        expect(Object.fromEntries(core.docsTree(given, 'docs'))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

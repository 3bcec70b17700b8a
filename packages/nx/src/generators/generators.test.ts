// The init and topic generators, on Nx's own in-memory workspace (@nx/devkit/testing), and the
// topic they scaffold run through the plugin's inference to prove it becomes a project.
import { createRequire } from 'node:module';
import { readNxJson, type Tree } from '@nx/devkit';
import { createTreeWithEmptyWorkspace } from '@nx/devkit/testing.js';
import { parse as parseYaml } from 'yaml';
import { beforeEach, describe, expect, it, vi } from 'vitest';

type Generator<S> = (tree: Tree, schema: S) => Promise<void>;
const require = createRequire(import.meta.url);
const init = require('./init/generator.cjs') as Generator<{ docsRoot?: string; topicMarker?: string; configFile?: string }>;
const topic = require('./topic/generator.cjs') as Generator<{ name: string; title?: string; docsRoot?: string; qaPairs?: boolean }>;
const core = require('../plugin.cjs') as {
  normalizeOptions(o: unknown): unknown;
  topicMarkers(files: string[], options: unknown): string[];
};
const { parseQaPairs, locateExcerpts } = (await import('@chunkyard/qa-pairs')) as typeof import('@chunkyard/qa-pairs');
const { parseConfig } = (await import('@chunkyard/config')) as typeof import('@chunkyard/config');

let tree: Tree;
beforeEach(() => {
  tree = createTreeWithEmptyWorkspace();
});

const entries = () => (readNxJson(tree)?.plugins ?? []).filter((p) => typeof p !== 'string' && p.plugin === '@chunkyard/nx');

describe('@chunkyard/nx:init', () => {
  it('registers the plugin with the docs root, writes a config the tools accept, and ignores the outputs', async () => {
    await init(tree, { docsRoot: 'content' });
    expect(entries()).toEqual([{ plugin: '@chunkyard/nx', options: { docsRoot: 'content' } }]);
    const config = tree.read('chunkyard.config.yaml', 'utf-8')!;
    // The config loader the tools use accepts it, and it states the defaults.
    expect(parseConfig(config, 'chunkyard.config.yaml').chunking).toMatchObject({ strategy: 'semantic', maxTokens: 512 });
    expect(parseYaml(config)).toEqual({ chunking: expect.any(Object) });
    const gitignore = tree.read('.gitignore', 'utf-8')!.split('\n');
    expect(gitignore).toEqual(expect.arrayContaining(['/content/**/_chunks', '/content/**/_keywords', '/content/**/topic-spec.md', '/content/**/index.json', '/content/llms.txt', '/content/llms-full.txt', '/.embedding-cache', '/.nx/cache']));
    expect(tree.exists('content/.gitkeep')).toBe(true);
  });

  it('is idempotent, keeps an existing config and .gitignore lines, and adds a second root as a second entry', async () => {
    tree.write('.gitignore', 'node_modules\n/docs/**/_chunks');
    tree.write('chunkyard.config.yaml', 'chunking:\n  maxTokens: 300\n');
    await init(tree, {});
    const once = { nx: tree.read('nx.json', 'utf-8'), gi: tree.read('.gitignore', 'utf-8') };
    await init(tree, {});
    expect({ nx: tree.read('nx.json', 'utf-8'), gi: tree.read('.gitignore', 'utf-8') }).toEqual(once);
    expect(tree.read('chunkyard.config.yaml', 'utf-8')).toBe('chunking:\n  maxTokens: 300\n');
    const gi = once.gi!.split('\n');
    expect(gi[0]).toBe('node_modules');
    expect(gi.filter((l) => l === '/docs/**/_chunks')).toHaveLength(1);
    await init(tree, { docsRoot: 'handbook' });
    expect(entries().map((e) => (e as { options: { docsRoot: string } }).options.docsRoot)).toEqual(['docs', 'handbook']);
  });

  it('creates nx.json when the workspace has none (npm i -D nx writes none)', async () => {
    tree.delete('nx.json');
    await init(tree, {});
    expect(JSON.parse(tree.read('nx.json', 'utf-8')!)).toEqual({
      $schema: './node_modules/nx/schemas/nx-schema.json',
      plugins: [{ plugin: '@chunkyard/nx', options: { docsRoot: 'docs' } }],
    });
  });

  it('records a non-default marker and config path in the plugin options', async () => {
    await init(tree, { docsRoot: 'kb', topicMarker: 'README.md', configFile: 'config/chunkyard.yaml' });
    expect(entries()).toEqual([{ plugin: '@chunkyard/nx', options: { docsRoot: 'kb', topicMarker: 'README.md', configFile: 'config/chunkyard.yaml' } }]);
    expect(tree.exists('config/chunkyard.yaml')).toBe(true);
  });

  it('refuses a file where the docs root goes, and a folder where the config file or .gitignore goes, naming it (probe)', async () => {
    // Each was kept as if it were right, and the plugin or the tools failed later on it.
    tree.write('docs', 'a file');
    await expect(init(tree, {})).rejects.toThrow('@chunkyard/nx:init: docs is a file, not a folder; remove it or give another --docsRoot');
    tree.delete('docs');
    tree.write('chunkyard.config.yaml/x', '');
    await expect(init(tree, {})).rejects.toThrow('@chunkyard/nx:init: chunkyard.config.yaml is a folder, not a file; remove it or give another --configFile');
    tree.delete('chunkyard.config.yaml');
    tree.write('.gitignore/x', '');
    await expect(init(tree, {})).rejects.toThrow('@chunkyard/nx:init: .gitignore is a folder, not a file; remove it');
  });

  it('refuses a docs root inside, or holding, one nx.json already has, which the plugin would refuse on every command (probe)', async () => {
    await init(tree, { docsRoot: 'docs' });
    await expect(init(tree, { docsRoot: 'docs/guides' })).rejects.toThrow(/^@chunkyard\/nx:init: docsRoot "docs\/guides" lies inside docsRoot "docs"/);
    await init(tree, { docsRoot: 'site/content' });
    await expect(init(tree, { docsRoot: 'site' })).rejects.toThrow(/^@chunkyard\/nx:init: docsRoot "site\/content" lies inside docsRoot "site"/);
    expect(entries().map((e) => (e as { options: { docsRoot: string } }).options.docsRoot)).toEqual(['docs', 'site/content']);
    // A sibling whose name starts the same is no nesting.
    await init(tree, { docsRoot: 'docs2' });
    expect(entries()).toHaveLength(3);
  });

  it('another --topicMarker or --configFile for a registered docs root is refused naming the value nx.json holds, not dropped (probe)', async () => {
    await init(tree, { docsRoot: 'kb', topicMarker: 'README.md' });
    const before = readNxJson(tree);
    await expect(init(tree, { docsRoot: 'kb', topicMarker: 'index.md' })).rejects.toThrow(
      /^@chunkyard\/nx:init: docsRoot "kb" is already registered in nx\.json with topicMarker "README\.md", not "index\.md"; init changes no registered entry, so edit topicMarker in the options of @chunkyard\/nx in nx\.json/,
    );
    await expect(init(tree, { docsRoot: 'kb', configFile: 'other.yaml' })).rejects.toThrow(/with configFile "chunkyard\.config\.yaml", not "other\.yaml"; .*edit configFile/);
    expect(tree.exists('other.yaml')).toBe(false);
    expect(readNxJson(tree)).toEqual(before);
    // Leaving them out, or giving the registered values, is the idempotent rerun.
    await init(tree, { docsRoot: 'kb' });
    await init(tree, { docsRoot: 'kb', topicMarker: 'README.md', configFile: 'chunkyard.config.yaml' });
    expect(readNxJson(tree)).toEqual(before);
    // Nx passes a schema default as if it were given: with one, `nx g init --docsRoot kb` was refused.
    const props = require('./init/schema.json').properties as Record<string, { default?: unknown }>;
    expect([props.topicMarker!.default, props.configFile!.default]).toEqual([undefined, undefined]);
  });

  it('rejects a docs root outside the workspace, naming the option', async () => {
    await expect(init(tree, { docsRoot: '../docs' })).rejects.toThrow(/docsRoot/);
    expect(entries()).toEqual([]);
  });
});

describe('@chunkyard/nx:topic', () => {
  it('scaffolds a topic under the registered docs root that the plugin infers as a project', async () => {
    await init(tree, { docsRoot: 'content' });
    await topic(tree, { name: 'guides/install-steps', qaPairs: true });
    const marker = 'content/guides/install-steps/golden-reference.md';
    const text = tree.read(marker, 'utf-8')!;
    expect(text.startsWith('# Install steps\n')).toBe(true);
    // The example question's excerpt is verbatim in the source, as the pipeline requires.
    const pairs = parseQaPairs(tree.read('content/guides/install-steps/qa-pairs.md', 'utf-8')!, 'qa-pairs.md');
    expect(pairs).toHaveLength(1);
    expect(pairs[0]!.excerpts).toHaveLength(1);
    expect(() => locateExcerpts(pairs, text, 'qa-pairs.md', 'golden-reference.md')).not.toThrow();
    const files: string[] = [];
    tree.listChanges().forEach((c) => files.push(c.path));
    expect(core.topicMarkers(files, core.normalizeOptions({ docsRoot: 'content' }))).toEqual([marker]);
  });

  it('uses the title given, and the marker the plugin was registered with', async () => {
    await init(tree, { docsRoot: 'kb', topicMarker: 'README.md' });
    await topic(tree, { name: 'faq', title: 'Frequently asked' });
    expect(tree.read('kb/faq/README.md', 'utf-8')!.split('\n')[0]).toBe('# Frequently asked');
  });

  it('refuses to overwrite a topic and rejects paths that leave the docs root', async () => {
    await topic(tree, { name: 'a' });
    await expect(topic(tree, { name: 'a' })).rejects.toThrow(/already exists/);
    await expect(topic(tree, { name: '../escape' })).rejects.toThrow(/not a folder path/);
    await expect(topic(tree, { name: '' })).rejects.toThrow(/not a folder path/);
  });

  it('a refused name is refused with the rule it breaks, the character named (probe: "c:d" was "no glob or control characters")', async () => {
    const refused = async (name: string) => {
      try {
        await topic(tree, { name });
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error(`${JSON.stringify(name)} was accepted`);
    };
    expect(await refused('c:d')).toMatch(/^@chunkyard\/nx:topic: "c:d" is not a folder path under the docs root: it holds ":", which Windows and macOS do not allow in a file name \(/);
    expect(await refused('../up')).toMatch(/: it holds "\.\." \(/);
    expect(await refused('/')).toMatch(/: it names no folder \(/);
    expect(await refused('v[2]')).toMatch(/: it holds the glob character "\[" \(/);
    expect(await refused('a\u0007b')).toMatch(/: it holds the control character \\u0007 \(/);
    expect(await refused('a\u2067b')).toMatch(/: it holds the bidirectional character \\u2067 \(/);
  });

  it('rejects control characters in the name and title, a file in the way, and a name whose project would collide (probe)', async () => {
    // A name with \u0001 made a folder of that name, and a title with an escape sequence went
    // into the heading, and from there into index.json titles and terminals.
    await expect(topic(tree, { name: 'ctl\u0001x' })).rejects.toThrow(/^@chunkyard\/nx:topic: "ctl\\u0001x" is not a folder path.*control characters/);
    // A bidirectional override: the plugin refuses the folder, so writing it broke the whole project graph.
    await expect(topic(tree, { name: 'rtl\u202eevil' })).rejects.toThrow(/^@chunkyard\/nx:topic: "rtl\\u202eevil" is not a folder path.*bidirectional/);
    expect(tree.exists('docs/rtl\u202eevil')).toBe(false);
    await expect(topic(tree, { name: 'ok', title: 'Bad\u001b]0;pwn\u0007' })).rejects.toThrow(/^@chunkyard\/nx:topic: the title "Bad\\u001b]0;pwn\\u0007" holds control characters/);
    // A file where a folder of the path must go: Nx wrote "CREATE" and then failed with a bare ENOTDIR.
    tree.write('docs/afile', 'x');
    await expect(topic(tree, { name: 'afile/sub' })).rejects.toThrow(/^@chunkyard\/nx:topic: docs\/afile is a file, not a folder; choose another name/);
    // docs/a-b and docs/a/b would both be the project topic-a-b (the plugin refuses that).
    await topic(tree, { name: 'a-b' });
    await expect(topic(tree, { name: 'a/b' })).rejects.toThrow(/^@chunkyard\/nx:topic: docs\/a\/b would be the project "topic-a-b", as docs\/a-b is already; choose another name/);
    expect(tree.exists('docs/a/b/golden-reference.md')).toBe(false);
  });

  it('--docsRoot: a folder no @chunkyard/nx entry watches is refused; a second entry root gets that entry marker (probe)', async () => {
    await init(tree, { docsRoot: 'docs' });
    await expect(topic(tree, { name: 'x', docsRoot: 'content' })).rejects.toThrow(
      /^@chunkyard\/nx:topic: --docsRoot "content" is not a docs root of @chunkyard\/nx in nx.json \(docs\), so the plugin would build no topic there/,
    );
    expect(tree.exists('content/x')).toBe(false);
    await init(tree, { docsRoot: 'kb', topicMarker: 'README.md' });
    await topic(tree, { name: 'faq', docsRoot: 'kb' });
    expect(tree.exists('kb/faq/README.md')).toBe(true);
    expect(tree.exists('kb/faq/golden-reference.md')).toBe(false);
    // A folder inside a registered root is under it: built, with that entry's marker.
    await topic(tree, { name: 'install', docsRoot: 'docs/guides' });
    expect(tree.exists('docs/guides/install/golden-reference.md')).toBe(true);
  });

  it('refuses a topic whose project name another project of the workspace has (project.json or workspace package.json), which the plugin refuses on every nx command (probe)', async () => {
    await init(tree, {});
    tree.write('apps/topic-spec/project.json', JSON.stringify({ name: 'topic-spec', targets: {} }));
    await expect(topic(tree, { name: 'spec' })).rejects.toThrow(
      '@chunkyard/nx:topic: docs/spec would be the project "topic-spec", which the project at apps/topic-spec already is; choose another name',
    );
    expect(tree.exists('docs/spec/golden-reference.md')).toBe(false);
    // The docs root's own name, taken by a site package of the workspaces, when its first topic comes.
    tree.write('package.json', JSON.stringify({ name: 'root', workspaces: ['site'] }));
    tree.write('site/package.json', JSON.stringify({ name: 'docs' }));
    await expect(topic(tree, { name: 'install' })).rejects.toThrow('@chunkyard/nx:topic: docs would be the project "docs", which the project at site already is; choose another name');
    tree.write('site/package.json', JSON.stringify({ name: 'docs-site' }));
    await topic(tree, { name: 'install' });
    expect(tree.exists('docs/install/golden-reference.md')).toBe(true);
  });

  it('--docsRoot inside the registered root names projects from that root: a clash it hid is refused, an unlisted folder too (probe)', async () => {
    await init(tree, { docsRoot: 'docs' });
    await topic(tree, { name: 'guides-new' });
    // From docs/guides, "new" was checked as topic-new; it is topic-guides-new, as docs/guides-new is.
    await expect(topic(tree, { name: 'new', docsRoot: 'docs/guides' })).rejects.toThrow(
      /^@chunkyard\/nx:topic: docs\/guides\/new would be the project "topic-guides-new", as docs\/guides-new is already; choose another name$/,
    );
    expect(tree.exists('docs/guides/new')).toBe(false);
    await expect(topic(tree, { name: 'x', docsRoot: 'docs/_drafts' })).rejects.toThrow(/the folder "_drafts" starts with "_"/);
    await topic(tree, { name: 'install', docsRoot: 'docs/guides' });
    expect(tree.exists('docs/guides/install/golden-reference.md')).toBe(true);
  });

  it('warns, naming init, when nx.json has no @chunkyard/nx entry: nothing would build the topic (probe)', async () => {
    const warned: string[] = [];
    const spy = vi.spyOn(console, 'warn').mockImplementation((...a: unknown[]) => void warned.push(a.map(String).join(' ')));
    try {
      await topic(tree, { name: 'guides/a' });
      expect(tree.exists('docs/guides/a/golden-reference.md')).toBe(true);
      expect(warned.join('\n')).toMatch(/@chunkyard\/nx:topic: warning: @chunkyard\/nx is not among the plugins of nx\.json, .*run npx nx g @chunkyard\/nx:init --docsRoot docs to register it/);
      warned.length = 0;
      await init(tree, { docsRoot: 'docs' });
      await topic(tree, { name: 'guides/b' });
      expect(warned).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses a name inside a folder index-tool lists in no index.json (_drafts, .hidden), which the plugin builds no topic in (probe)', async () => {
    await expect(topic(tree, { name: '_drafts/new' })).rejects.toThrow(/^@chunkyard\/nx:topic: "_drafts\/new": the folder "_drafts" starts with "_" or "\."/);
    await expect(topic(tree, { name: 'guides/.wip' })).rejects.toThrow(/the folder "\.wip" starts with/);
    expect(tree.exists('docs/_drafts')).toBe(false);
    expect(tree.exists('docs/guides')).toBe(false);
    await topic(tree, { name: 'guides/ok_not_first' });
    await topic(tree, { name: 'guides/ok' });
    expect(tree.exists('docs/guides/ok/golden-reference.md')).toBe(true);
  });

  it('refuses a folder named as a file chunkyard writes (git-ignored, so never built) or as the marker (which fails every nx command) (probe)', async () => {
    await init(tree, { docsRoot: 'docs' });
    const ignored = tree.read('.gitignore', 'utf-8')!;
    for (const [name, folder] of <[string, string][]>[
      ['sub/index.json', 'index.json'],
      ['g/topic-spec.md/x', 'topic-spec.md'],
      ['llms.txt', 'llms.txt'],
      ['llms-full.txt/a', 'llms-full.txt'],
      ['golden-reference.md', 'golden-reference.md'],
      ['a/golden-reference.md/b', 'golden-reference.md'],
    ]) {
      await expect(topic(tree, { name }), name).rejects.toThrow(new RegExp(`^@chunkyard/nx:topic: "${name.replace(/\./g, '\\.')}": the folder "${folder.replace(/\./g, '\\.')}" .*; choose another name$`));
      expect(tree.exists(`docs/${name.split('/')[0]}`), name).toBe(false);
    }
    // The output names are the ones init ignores; below the root, llms.txt is a plain folder name.
    for (const f of ['index.json', 'topic-spec.md', 'llms.txt', 'llms-full.txt']) expect(ignored).toContain(f);
    await topic(tree, { name: 'a/llms.txt' });
    await topic(tree, { name: 'b/index.json.d' });
    expect(tree.exists('docs/a/llms.txt/golden-reference.md')).toBe(true);
    await init(tree, { docsRoot: 'kb', topicMarker: 'README.md' });
    await expect(topic(tree, { name: 'x/README.md', docsRoot: 'kb' })).rejects.toThrow(/the folder "README\.md" is the topic marker's name/);
    await topic(tree, { name: 'x/golden-reference.md', docsRoot: 'kb' });
  });
});

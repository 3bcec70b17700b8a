// Types of index.cjs for TypeScript users of the plugin (nx.json needs none: Nx loads the CJS).
import type { CreateNodesV2 } from '@nx/devkit';

/** The plugin's options in nx.json: `{ "plugin": "@chunkyard/nx", "options": { … } }`. */
export interface ChunkyardNxOptions {
  /** Workspace-relative folder(s) holding the topics (default `docs`). */
  docsRoot?: string | string[];
  /** File whose presence makes a folder a topic, and the document it chunks (default `golden-reference.md`). */
  topicMarker?: string;
  /** Workspace-relative config every topic reads (default `chunkyard.config.yaml`). */
  configFile?: string;
  /** Workspace-relative root of the per-topic embedding caches (default `.embedding-cache`). */
  embeddingCacheDir?: string;
}

/** Where a pipeline tool lives: installed from npm, or a project of this very workspace. */
export type ToolLocation = { kind: 'installed'; packageName: string } | { kind: 'workspace'; packageName: string; project: string };

export declare const name: '@chunkyard/nx';
export declare const createNodes: CreateNodesV2<ChunkyardNxOptions>;
export declare const createNodesV2: CreateNodesV2<ChunkyardNxOptions>;
export declare function locateTool(packageName: string, workspaceRoot: string): ToolLocation;
/** The message for a docs root that is a symlink, missing or not a folder; null when it is fine. */
export declare function explainEmptyRoot(docsRoot: string, workspaceRoot: string): string | null;

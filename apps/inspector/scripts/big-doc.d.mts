/** ~200 KB of deterministic markdown; section 1 is an "API reference" (a technical baseline). */
export function bigMarkdown(sections?: number): string;

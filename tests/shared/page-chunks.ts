// What a page loads at start from an esbuild build with splitting: the entry chunk and the
// chunks it imports statically. A dynamic import is a chunk fetched only when it runs.
import type { Metafile } from "esbuild";

/**
 * The output files (metafile paths) a page of the build's stdin loads at start; with `later`,
 * also those it may fetch later by a dynamic import that survived tree shaking (esbuild makes a
 * chunk of every `import()` it sees, even one in code it then drops).
 */
export function loadedAtStart(metafile: Metafile, { later = false }: { later?: boolean } = {}): string[] {
  const outputs = metafile.outputs;
  const loaded = new Set<string>();
  const load = (file: string) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const i of outputs[file]!.imports)
      if ((i.kind === "import-statement" || (later && i.kind === "dynamic-import")) && !i.external) load(i.path);
  };
  // The page's own entry, the build's stdin: a module a dynamic import names is an entry point too.
  load(Object.keys(outputs).find((f) => f.endsWith("/stdin.js"))!);
  return [...loaded];
}

// What a page loads at start from an esbuild build with splitting: the entry chunk and the
// chunks it imports statically. A dynamic import is a chunk fetched only when it runs.
import type { Metafile } from "esbuild";

/** The output files (metafile paths) a page of the build's one entry point loads at start. */
export function loadedAtStart(metafile: Metafile): string[] {
  const outputs = metafile.outputs;
  const loaded = new Set<string>();
  const load = (file: string) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const i of outputs[file]!.imports) if (i.kind === "import-statement" && !i.external) load(i.path);
  };
  load(Object.keys(outputs).find((f) => outputs[f]!.entryPoint !== undefined)!);
  return [...loaded];
}

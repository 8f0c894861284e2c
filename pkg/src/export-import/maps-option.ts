// The `maps` option of an export (and of the engine's requests), checked at the call: the one
// part of an export a page loads before it exports.
import * as args from "../common/args.js";

/** @internal The maps an export asks for (`options.maps`, checked), or undefined for every map. */
export function wantedMaps(options: unknown): string[] | undefined {
  const wanted = args.field("options", args.options("options", options), "maps");
  if (wanted === undefined) return undefined;
  return args.list<unknown>("options.maps", wanted, 100_000).map((m, i) => args.string(`options.maps[${i}]`, m));
}

// What the browser benches print: per row, each contender's median time per operation, and
// attrmap's ratio to each peer (or one contender's rows to its first) with the spread of the
// per-round ratios. And the order the contenders take their turns in, round by round.

/** Milliseconds per operation, by row, of one contender in one round. */
export type RoundResult = Record<string, number>;

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const ms = (x: number) => (x >= 1 ? `${x.toFixed(2)} ms` : `${(x * 1000).toFixed(1)} us`);

/** Per-round ratios as the benches print them: median (min to max). */
const spread = (per: number[]) => `${median(per).toFixed(2)}x (${Math.min(...per).toFixed(2)} to ${Math.max(...per).toFixed(2)})`;

/**
 * The order `contenders` are set up and run in, in `round`: a Williams design, in which over
 * every `contenders.length` rounds each one goes first once and right after each other one
 * once. (A plain rotation would keep every contender behind the same one, in that one's
 * background work.)
 */
export function williamsOrder<C>(contenders: readonly C[], round: number): C[] {
  const n = contenders.length;
  const first = Array.from({ length: n }, (_, i) => (i % 2 ? (i + 1) / 2 : (n - i / 2) % n));
  return first.map((c) => contenders[(c + round) % n]!);
}

/** Prints `title` and one line per row: medians, then the first contender's ratios to the others. */
export function printTable<C extends string>(
  title: string,
  contenders: readonly C[],
  rows: readonly string[],
  results: ReadonlyMap<C, RoundResult[]>,
): void {
  console.log(`\n${title}`);
  console.log(`${"operation".padEnd(38)}${contenders.map((c) => c.padStart(12)).join("")}   ratios`);
  const [self, ...peers] = contenders;
  for (const row of rows) {
    const cells = contenders.map((c) => {
      const xs = results
        .get(c)!
        .map((r) => r[row])
        .filter((x): x is number => x !== undefined);
      return xs.length ? ms(median(xs)) : "-";
    });
    const ratios = peers.flatMap((peer) => {
      const per = results.get(self!)!.flatMap((r, i) => {
        const p = results.get(peer)![i]![row];
        return p === undefined || r[row] === undefined ? [] : [r[row]! / p];
      });
      if (per.length === 0) return [];
      return [`/${peer} ${spread(per)}`];
    });
    console.log(`${row.padEnd(38)}${cells.map((c) => c.padStart(12)).join("")}   ${ratios.join(", ")}`);
  }
}

/** Prints `title`, then each row's median and its ratio to the first row's, round by round (one contender's rows). */
export function printRatios(title: string, rows: readonly string[], rounds: readonly RoundResult[]): void {
  console.log(`\n${title}`);
  const [base] = rows;
  for (const row of rows) {
    const per = rounds.map((r) => r[row]! / r[base!]!);
    const time = median(rounds.map((r) => r[row]!));
    const shown = time >= 100 ? `${(time / 1000).toFixed(2)} s` : `${time.toFixed(2)} ms`;
    console.log(`${row.padEnd(48)}${shown.padStart(10)}   ${spread(per)}`);
  }
}

/**
 * A small seeded generator (mulberry32) for fuzz tests: the same seed gives the same inputs, so
 * a failure is replayed with `TANDEM_FUZZ_SEED`.
 */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}

export type SeededRandom = ReturnType<typeof seededRandom>;

/** The seed of a fuzz test: `TANDEM_FUZZ_SEED` when set, else the test's own. */
export function fuzzSeed(fallback: number): number {
  return Number(process.env.TANDEM_FUZZ_SEED ?? fallback);
}

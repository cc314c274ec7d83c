/**
 * A seeded PRNG (sfc32, seeded through splitmix32) so a bench run is reproducible: the same seed gives
 * the same fleet, the same injected errors and therefore the same table.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  between(min: number, max: number): number;
  /** true with probability p. */
  chance(p: number): boolean;
  /** Normal(mean, sd) clipped to [min, max]. */
  normal(mean: number, sd: number, min: number, max: number): number;
  /** A key of `weights`, drawn in proportion to its weight. */
  pick<K extends string | number>(weights: ReadonlyArray<readonly [K, number]>): K;
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const splitmix = (): number => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();

  return {
    next,
    between: (min, max) => min + (max - min) * next(),
    chance: (p) => next() < p,
    normal(mean, sd, min, max) {
      // Box–Muller; 1 - next() keeps the logarithm finite.
      const z = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
      return Math.min(max, Math.max(min, mean + sd * z));
    },
    pick(weights) {
      const total = weights.reduce((sum, [, w]) => sum + w, 0);
      let r = next() * total;
      for (const [key, w] of weights) {
        r -= w;
        if (r < 0) return key;
      }
      const last = weights[weights.length - 1];
      if (!last) throw new Error('pick needs at least one weight');
      return last[0];
    },
  };
}

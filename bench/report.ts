/** How every benchmark of Tandem reports a latency: p50, p95 and max of its samples, in ms. */

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One row of a Markdown table: label, p50, p95, max, number of samples. */
export function row(label: string, samples: number[]): string {
  const f = (n: number) => n.toFixed(1);
  const cells = [percentile(samples, 50), percentile(samples, 95), Math.max(...samples)].map(f);
  return `| ${label} | ${cells.join(' | ')} | ${samples.length} |`;
}

/** Small statistics helpers. */

export function mean(values) {
  if (values.length === 0) throw new RangeError('mean of an empty list');
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

export function range(values) {
  if (values.length === 0) throw new RangeError('range of an empty list');
  return Math.max(...values) - Math.min(...values);
}

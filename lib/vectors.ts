/**
 * Inner product of a (from aOffset) and b (from bOffset) over `dims` entries,
 * in four running sums: independent additions the CPU overlaps (about twice as
 * fast as one sum on these vectors).
 */
export function dotAt(a: Float32Array, b: Float32Array, bOffset: number, dims: number, aOffset = 0): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < dims; j += 4) {
    s0 += a[aOffset + j] * b[bOffset + j];
    s1 += a[aOffset + j + 1] * b[bOffset + j + 1];
    s2 += a[aOffset + j + 2] * b[bOffset + j + 2];
    s3 += a[aOffset + j + 3] * b[bOffset + j + 3];
  }
  for (; j < dims; j++) s0 += a[aOffset + j] * b[bOffset + j];
  return s0 + s1 + s2 + s3;
}

/**
 * The WebAssembly inner products (lib/vector-kernel): the same products as the
 * JavaScript loop within float rounding, for rows in sequence and picked by
 * position, exact ones over int8 rows, and the compiled bytes in the repository are what dots.wat compiles to.
 */
import { readFileSync } from 'node:fs';
import { paddedDims, VectorArena } from '../../lib/vector-kernel';
import { seededRandom } from '../../lib/ivf-index';
import { compiledKernelModule, KERNEL_MODULE } from '../../scripts/build-vector-kernel';

const random = seededRandom(11);
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, j) => s + x * b[j], 0);

test.each([1, 15, 16, 64, 100, 384])('%d-dimensional rows: the products of rows in sequence and by position', (dims) => {
  const stride = paddedDims(dims);
  const rows = Array.from({ length: 37 }, () => Float32Array.from({ length: dims }, () => random() - 0.5));
  const q = Float32Array.from({ length: dims }, () => random() - 0.5);
  const arena = new VectorArena(VectorArena.floatsFor(stride, rows.length * stride, rows.length, rows.length));
  const [qAt, rowsAt, outAt, posAt] = [arena.region(stride), arena.region(rows.length * stride), arena.region(rows.length), arena.region(rows.length)];
  arena.f32.set(q, qAt);
  rows.forEach((row, r) => arena.f32.set(row, rowsAt + r * stride));
  arena.dots(qAt, rowsAt, stride, rows.length, outAt);
  rows.forEach((row, r) => expect(arena.f32[outAt + r]).toBeCloseTo(dot(q, row), 5));

  const picked = [36, 0, 5, 5, 20];
  arena.i32.set(picked, posAt);
  arena.gatherDots(qAt, rowsAt, stride, posAt, picked.length, outAt);
  picked.forEach((r, k) => expect(arena.f32[outAt + k]).toBeCloseTo(dot(q, rows[r]), 5));
});

test('int8 rows: the exact integer products', () => {
  const dims = 64;
  const rows = Array.from({ length: 9 }, () => Int8Array.from({ length: dims }, () => Math.round((random() - 0.5) * 254)));
  const q = Int8Array.from({ length: dims }, () => Math.round((random() - 0.5) * 254));
  const arena = new VectorArena(VectorArena.floatsFor(dims / 4, (rows.length * dims) / 4, rows.length));
  const [qAt, rowsAt, outAt] = [arena.region(dims / 4), arena.region((rows.length * dims) / 4), arena.region(rows.length)];
  arena.i8.set(q, qAt * 4);
  rows.forEach((row, r) => arena.i8.set(row, rowsAt * 4 + r * dims));
  arena.dotsInt8(qAt * 4, rowsAt * 4, dims, rows.length, outAt);
  rows.forEach((row, r) => expect(arena.i32[outAt + r]).toBe(row.reduce((s, x, j) => s + x * q[j], 0)));
});

test('an arena refuses a region beyond its size', () => {
  const arena = new VectorArena(VectorArena.floatsFor(10));
  arena.region(10);
  expect(() => arena.region(1)).toThrow(RangeError);
});

test('the compiled kernel in the repository is what dots.wat compiles to (npx tsx scripts/build-vector-kernel.ts)', async () => {
  expect(readFileSync(KERNEL_MODULE, 'utf8')).toBe(await compiledKernelModule());
});

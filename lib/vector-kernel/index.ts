/**
 * Inner products over rows of floats in WebAssembly SIMD (dots.wat): the
 * nearest-neighbour index's scans (lib/ivf-index.ts). A VectorArena is one
 * WebAssembly memory sized once for what it will hold: regions of floats laid
 * out by the caller, rows padded to a multiple of 16 floats, and the kernel's
 * products written into another region.
 */
import { DOTS_WASM_BASE64 } from './dots-wasm';

/** Rows in an arena are this many floats apart at least (the kernel's step: four f32x4 sums). */
export const ROW_ALIGN = 16;

/** `dims` rounded up to the kernel's step; the padding holds zeros. */
export const paddedDims = (dims: number): number => Math.ceil(dims / ROW_ALIGN) * ROW_ALIGN;

/** The few WebAssembly APIs used here (the project's lib setting leaves out the DOM's declarations of them). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

interface KernelExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  dots(q: number, rows: number, dims: number, count: number, out: number): void;
  gather_dots(q: number, rows: number, dims: number, at: number, count: number, out: number): void;
  dots_i8(q: number, rows: number, dims: number, count: number, out: number): void;
}

let compiled: object | undefined;
const kernelModule = () => (compiled ??= new wasm.Module(Buffer.from(DOTS_WASM_BASE64, 'base64')));

const PAGE_BYTES = 65536;

/** A region of an arena: its first float's index in `f32` (and int's in `i32`). */
export type Region = number;

export class VectorArena {
  readonly f32: Float32Array;
  readonly i32: Int32Array;
  /** The same memory as bytes: a region's first byte is 4 x its Region. */
  readonly i8: Int8Array;
  private readonly kernel: KernelExports;
  private used = 0;

  /** An arena of `floats` floats (regions are 16-float aligned: count their padding in). */
  constructor(private readonly capacity: number) {
    this.kernel = new wasm.Instance(kernelModule(), {}).exports as KernelExports;
    const bytes = capacity * 4;
    const pages = Math.ceil(bytes / PAGE_BYTES) - this.kernel.memory.buffer.byteLength / PAGE_BYTES;
    if (pages > 0) this.kernel.memory.grow(pages);
    this.f32 = new Float32Array(this.kernel.memory.buffer);
    this.i32 = new Int32Array(this.kernel.memory.buffer);
    this.i8 = new Int8Array(this.kernel.memory.buffer);
  }

  /** Floats an arena needs for regions of these sizes (each aligned). */
  static floatsFor(...sizes: number[]): number {
    return sizes.reduce((sum, size) => sum + paddedDims(size), 0);
  }

  get bytes(): number {
    return this.f32.byteLength;
  }

  /** The next `floats` floats (zeros), aligned to the kernel's step. */
  region(floats: number): Region {
    const at = this.used;
    this.used += paddedDims(floats);
    if (this.used > this.capacity) throw new RangeError(`vector arena: ${this.used} floats asked of ${this.capacity}`);
    return at;
  }

  /** out[r] = q . rows[r] for r < count; rows are `dims` floats apart (a multiple of ROW_ALIGN). */
  dots(q: Region, rows: Region, dims: number, count: number, out: Region): void {
    this.kernel.dots(q * 4, rows * 4, dims, count, out * 4);
  }

  /**
   * i32[out + r] = q . rows[r] for r < count over int8 entries: q and rows are byte offsets,
   * rows `dims` bytes apart (a multiple of ROW_ALIGN).
   */
  dotsInt8(qByte: number, rowsByte: number, dims: number, count: number, out: Region): void {
    this.kernel.dots_i8(qByte, rowsByte, dims, count, out * 4);
  }

  /** out[k] = q . rows[i32[at + k]] for k < count: rows picked by position. */
  gatherDots(q: Region, rows: Region, dims: number, at: Region, count: number, out: Region): void {
    this.kernel.gather_dots(q * 4, rows * 4, dims, at * 4, count, out * 4);
  }
}

/** One matrix's rows times vector after vector (an index build's projections and nearest centroids). */
export class RowProducts {
  private readonly arena: VectorArena;
  private readonly stride: number;
  private readonly count: number;
  private readonly rowsAt: Region;
  private readonly vectorAt: Region;
  private readonly outAt: Region;

  /** `rows`: count x dims floats, row after row. */
  constructor(
    rows: Float32Array,
    private readonly dims: number,
  ) {
    this.count = rows.length / dims;
    this.stride = paddedDims(dims);
    this.arena = new VectorArena(VectorArena.floatsFor(this.count * this.stride, this.stride, this.count));
    this.rowsAt = this.arena.region(this.count * this.stride);
    this.vectorAt = this.arena.region(this.stride);
    this.outAt = this.arena.region(this.count);
    for (let r = 0; r < this.count; r++) this.arena.f32.set(rows.subarray(r * dims, (r + 1) * dims), this.rowsAt + r * this.stride);
  }

  /** Each row's product with v[at .. at + dims): a view, valid until the next call. */
  of(v: Float32Array, at = 0): Float32Array {
    const { arena, dims } = this;
    arena.f32.set(at === 0 && v.length === dims ? v : v.subarray(at, at + dims), this.vectorAt);
    arena.dots(this.vectorAt, this.rowsAt, this.stride, this.count, this.outAt);
    return arena.f32.subarray(this.outAt, this.outAt + this.count);
  }
}

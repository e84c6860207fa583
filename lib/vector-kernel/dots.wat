;; Inner products in WebAssembly SIMD (lib/vector-kernel/index.ts): four f32x4
;; running sums per row, about six times the speed of the same loop in JavaScript.
;; Offsets are in bytes; dims is a multiple of 16 (callers pad their rows with zeros).
;; scripts/build-vector-kernel.ts compiles this file to dots-wasm.ts.
(module
  (memory (export "memory") 1)
  ;; out[r] = q . rows[r] for r in [0, count): rows follow each other, dims floats apart
  (func $dots (export "dots") (param $q i32) (param $rows i32) (param $dims i32) (param $count i32) (param $out i32)
    (local $row i32) (local $end i32) (local $j i32) (local $stride i32) (local $last i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $stride (i32.shl (local.get $dims) (i32.const 2)))
    (local.set $row (local.get $rows))
    (local.set $last (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (loop $rowloop
        (br_if $done (i32.ge_u (local.get $out) (local.get $last)))
        (local.set $a0 (v128.const f32x4 0 0 0 0))
        (local.set $a1 (v128.const f32x4 0 0 0 0))
        (local.set $a2 (v128.const f32x4 0 0 0 0))
        (local.set $a3 (v128.const f32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $inner
          (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (i32.add (local.get $q) (local.get $j))) (v128.load (i32.add (local.get $row) (local.get $j))))))
          (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (i32.add (local.get $q) (local.get $j))) (v128.load offset=16 (i32.add (local.get $row) (local.get $j))))))
          (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=32 (i32.add (local.get $q) (local.get $j))) (v128.load offset=32 (i32.add (local.get $row) (local.get $j))))))
          (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=48 (i32.add (local.get $q) (local.get $j))) (v128.load offset=48 (i32.add (local.get $row) (local.get $j))))))
          (local.set $j (i32.add (local.get $j) (i32.const 64)))
          (br_if $inner (i32.lt_u (local.get $j) (local.get $stride))))
        (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
        (f32.store (local.get $out)
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
            (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (local.set $row (i32.add (local.get $row) (local.get $stride)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $rowloop))))

  ;; out[k] = q . rows[at[k]] for k in [0, count): the rows are picked by their positions (i32)
  (func (export "gather_dots") (param $q i32) (param $rows i32) (param $dims i32) (param $at i32) (param $count i32) (param $out i32)
    (local $last i32) (local $stride i32)
    (local.set $stride (i32.shl (local.get $dims) (i32.const 2)))
    (local.set $last (i32.add (local.get $at) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $at) (local.get $last)))
        (call $dots (local.get $q) (i32.add (local.get $rows) (i32.mul (i32.load (local.get $at)) (local.get $stride))) (local.get $dims) (i32.const 1) (local.get $out))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $each))))

  ;; out[r] = q . rows[r] for r in [0, count) over int8 entries (dims a multiple of 16, rows dims
  ;; bytes apart), as i32: each 16 bytes widened to i16 and summed in pairs (i32x4.dot_i16x8_s)
  (func (export "dots_i8") (param $q i32) (param $rows i32) (param $dims i32) (param $count i32) (param $out i32)
    (local $row i32) (local $j i32) (local $last i32) (local $acc v128) (local $qv v128) (local $rv v128)
    (local.set $row (local.get $rows))
    (local.set $last (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (loop $rowloop
        (br_if $done (i32.ge_u (local.get $out) (local.get $last)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $inner
          (local.set $qv (v128.load (i32.add (local.get $q) (local.get $j))))
          (local.set $rv (v128.load (i32.add (local.get $row) (local.get $j))))
          (local.set $acc (i32x4.add (local.get $acc)
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $qv)) (i16x8.extend_low_i8x16_s (local.get $rv)))))
          (local.set $acc (i32x4.add (local.get $acc)
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $qv)) (i16x8.extend_high_i8x16_s (local.get $rv)))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $inner (i32.lt_u (local.get $j) (local.get $dims))))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $row (i32.add (local.get $row) (local.get $dims)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $rowloop))))
)

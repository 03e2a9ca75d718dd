;; The float32 SIMD pass of the exact vector search (see vector-cache.ts): the dot product of a query with each
;; row of a table of vectors held in this instance's memory. Rows are `stride` floats apart (a multiple of 16, the
;; tail padded with zeros), so each step reads 64 bytes into four f32x4 accumulators; the four are added pairwise,
;; then the lanes, and the row's float32 dot product is stored at `out`. Its rounding error is bounded in
;; vector-cache.ts; the answers are then rescored in float64.
(module
  (memory (export "memory") 1)
  (func (export "dots")
    (param $rows i32) (param $count i32) (param $stride i32) (param $query i32) (param $out i32)
    (local $row i32) (local $end i32) (local $q i32) (local $bytes i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $bytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $row (local.get $rows))
    (block $done
      (loop $rowLoop
        (br_if $done (i32.eqz (local.get $count)))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $end (i32.add (local.get $row) (local.get $bytes)))
        (local.set $q (local.get $query))
        (loop $step
          (local.set $a0 (f32x4.add (local.get $a0)
            (f32x4.mul (v128.load (local.get $row)) (v128.load (local.get $q)))))
          (local.set $a1 (f32x4.add (local.get $a1)
            (f32x4.mul (v128.load offset=16 (local.get $row)) (v128.load offset=16 (local.get $q)))))
          (local.set $a2 (f32x4.add (local.get $a2)
            (f32x4.mul (v128.load offset=32 (local.get $row)) (v128.load offset=32 (local.get $q)))))
          (local.set $a3 (f32x4.add (local.get $a3)
            (f32x4.mul (v128.load offset=48 (local.get $row)) (v128.load offset=48 (local.get $q)))))
          (local.set $row (i32.add (local.get $row) (i32.const 64)))
          (local.set $q (i32.add (local.get $q) (i32.const 64)))
          (br_if $step (i32.lt_u (local.get $row) (local.get $end))))
        (local.set $a0 (f32x4.add
          (f32x4.add (local.get $a0) (local.get $a1))
          (f32x4.add (local.get $a2) (local.get $a3))))
        (f32.store (local.get $out)
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
            (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
        (br $rowLoop)))))

/**
 * The inner loop of vector search as a WebAssembly SIMD function: `scores(q, m, stride, rows,
 * out)` writes out[r] = Σ_d q[d] · m[r·stride + d] for every row, four lanes at a time. V8
 * does not vectorise the JavaScript loop, and this is about 3–4× faster than it.
 *
 * The module is assembled here from named opcodes rather than shipped as an opaque blob,
 * so it can be read and reviewed; it is 150-odd bytes. `stride` must be a multiple of 4
 * (rows are zero-padded); all pointers are byte offsets into the imported memory.
 *
 *   (func (export "scores") (param $q $m $stride $rows $out i32)
 *     (local $r $p $qp $qend i32) (local $acc0 $acc1 v128)
 *     p = m; qend = q + stride*4
 *     for r in 0..rows:
 *       acc0 = acc1 = 0; qp = q
 *       while qp < qend:                      ;; two accumulators: 8 floats per step
 *         acc0 += load(qp) * load(p); acc1 += load(qp+16) * load(p+16); qp += 32; p += 32
 *       out[r] = sum of the lanes of acc0 + acc1
 */

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: 0x02, loop: 0x03, br: 0x0c, brIf: 0x0d, end: 0x0b,
  localGet: 0x20, localSet: 0x21, i32Const: 0x41, i32Add: 0x6a, i32Shl: 0x74, i32GeU: 0x4f,
  f32Store: 0x38, f32Add: 0x92, i32Store: 0x36, simd: 0xfd,
} as const;
// SIMD sub-opcodes (LEB128-encoded after 0xfd).
const simd = { v128Load: [0x00], v128Const: [0x0c], f32x4ExtractLane: [0x1f], f32x4Add: [0xe4, 0x01], f32x4Mul: [0xe6, 0x01] } as const;

const Q = 0, M = 1, STRIDE = 2, ROWS = 3, OUT = 4, R = 5, P = 6, QP = 7, QEND = 8, ACC0 = 9, ACC1 = 10;
const get = (i: number) => [op.localGet, i];
const set = (i: number) => [op.localSet, i];
const i32 = (n: number) => [op.i32Const, n]; // only small non-negative n (< 64) are used
const load = (offset: number) => [op.simd, ...simd.v128Load, 4, offset]; // align 2^4, offset
const addMulInto = (acc: number, offset: number) => [...get(acc), ...get(QP), ...load(offset), ...get(P), ...load(offset), op.simd, ...simd.f32x4Mul, op.simd, ...simd.f32x4Add, ...set(acc)];
const lane = (acc: number, l: number) => [...get(acc), op.simd, ...simd.f32x4ExtractLane, l];
const zero = [op.simd, ...simd.v128Const, ...new Array(16).fill(0)];

const body = [
  ...get(M), ...set(P),
  ...get(Q), ...get(STRIDE), ...i32(2), op.i32Shl, op.i32Add, ...set(QEND),
  op.block, 0x40, op.loop, 0x40,
  ...get(R), ...get(ROWS), op.i32GeU, op.brIf, 1,
  ...zero, ...set(ACC0), ...zero, ...set(ACC1), ...get(Q), ...set(QP),
  op.block, 0x40, op.loop, 0x40,
  ...get(QP), ...get(QEND), op.i32GeU, op.brIf, 1,
  ...addMulInto(ACC0, 0), ...addMulInto(ACC1, 16),
  ...get(QP), ...i32(32), op.i32Add, ...set(QP),
  ...get(P), ...i32(32), op.i32Add, ...set(P),
  op.br, 0, op.end, op.end,
  // out[r] = lanes of acc0 + acc1
  ...get(OUT), ...get(R), ...i32(2), op.i32Shl, op.i32Add,
  ...get(ACC0), ...get(ACC1), op.simd, ...simd.f32x4Add, ...set(ACC0),
  ...lane(ACC0, 0), ...lane(ACC0, 1), op.f32Add, ...lane(ACC0, 2), ...lane(ACC0, 3), op.f32Add, op.f32Add,
  op.f32Store, 2, 0,
  ...get(R), ...i32(1), op.i32Add, ...set(R),
  op.br, 0, op.end, op.end,
  op.end,
];

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, content: number[]) => [id, ...uleb(content.length), ...content];
const name = (s: string) => [...uleb(s.length), ...Buffer.from(s, 'utf8')];

const code = [...vec([[4, I32], [2, V128]]), ...body];
export const KERNEL_BYTES = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0]])),
  ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]])),
  ...section(3, vec([[0]])),
  ...section(7, vec([[...name('scores'), 0x00, 0]])),
  ...section(10, vec([[...uleb(code.length), ...code]])),
]);

/**
 * The int8 kernel, `dots(q, m, stride, rows, out)`: out[r] = Σ_d q[d] · m[r·stride + d] as
 * int32, where q holds `stride` int16 values and each row of m `stride` int8 values (stride a
 * multiple of 16). Rows are a quarter of the Float32 bytes, so a scan reads 4× less memory,
 * and one `i32x4.dot_i16x8_s` does 8 multiply-adds. Query values stay within ±4095 and row
 * values within ±127, so the int32 lanes cannot overflow below 16,000 dimensions.
 *
 *   p = m; qend = q + stride*2
 *   for r in 0..rows:
 *     acc0 = acc1 = 0; qp = q
 *     while qp < qend:                        ;; 16 dimensions per step
 *       acc0 += dot(load(qp), load8x8_s(p)); acc1 += dot(load(qp+16), load8x8_s(p+8)); qp += 32; p += 16
 *     out[r] = sum of the lanes of acc0 + acc1
 */
const simdI8 = { load8x8s: [0x01], i32x4ExtractLane: [0x1b], i32x4Add: [0xae, 0x01], i32x4DotI16x8s: [0xba, 0x01] } as const;
const loadI8 = (offset: number) => [op.simd, ...simdI8.load8x8s, 3, offset]; // align 2^3
const dotInto = (acc: number, qOffset: number, mOffset: number) => [
  ...get(acc), ...get(QP), ...load(qOffset), ...get(P), ...loadI8(mOffset), op.simd, ...simdI8.i32x4DotI16x8s, op.simd, ...simdI8.i32x4Add, ...set(acc),
];
const laneI = (acc: number, l: number) => [...get(acc), op.simd, ...simdI8.i32x4ExtractLane, l];
const bodyI8 = [
  ...get(M), ...set(P),
  ...get(Q), ...get(STRIDE), ...i32(1), op.i32Shl, op.i32Add, ...set(QEND),
  op.block, 0x40, op.loop, 0x40,
  ...get(R), ...get(ROWS), op.i32GeU, op.brIf, 1,
  ...zero, ...set(ACC0), ...zero, ...set(ACC1), ...get(Q), ...set(QP),
  op.block, 0x40, op.loop, 0x40,
  ...get(QP), ...get(QEND), op.i32GeU, op.brIf, 1,
  ...dotInto(ACC0, 0, 0), ...dotInto(ACC1, 16, 8),
  ...get(QP), ...i32(32), op.i32Add, ...set(QP),
  ...get(P), ...i32(16), op.i32Add, ...set(P),
  op.br, 0, op.end, op.end,
  ...get(OUT), ...get(R), ...i32(2), op.i32Shl, op.i32Add,
  ...get(ACC0), ...get(ACC1), op.simd, ...simdI8.i32x4Add, ...set(ACC0),
  ...laneI(ACC0, 0), ...laneI(ACC0, 1), op.i32Add, ...laneI(ACC0, 2), ...laneI(ACC0, 3), op.i32Add, op.i32Add,
  op.i32Store, 2, 0,
  ...get(R), ...i32(1), op.i32Add, ...set(R),
  op.br, 0, op.end, op.end,
  op.end,
];
const codeI8 = [...vec([[4, I32], [2, V128]]), ...bodyI8];
export const KERNEL_I8_BYTES = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0]])),
  ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]])),
  ...section(3, vec([[0]])),
  ...section(7, vec([[...name('dots'), 0x00, 0]])),
  ...section(10, vec([[...uleb(codeI8.length), ...codeI8]])),
]);

export type ScoresFn = (q: number, m: number, stride: number, rows: number, out: number) => void;

// The project's lib (ES2023, no DOM) has no WebAssembly types; these are the members used.
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** WebAssembly memory of at least `bytes`, or null when it cannot be had (too large, no WebAssembly). */
export function createMemory(bytes: number): WasmMemory | null {
  if (!wasm) return null;
  try {
    return new wasm.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) });
  } catch {
    return null;
  }
}

/** The kernel bound to `memory`, or null where WebAssembly SIMD is unavailable. */
export function instantiateKernel(memory: WasmMemory): ScoresFn | null {
  if (!wasm || !wasm.validate(KERNEL_BYTES)) return null;
  const instance = new wasm.Instance(new wasm.Module(KERNEL_BYTES), { env: { memory } });
  return instance.exports.scores as ScoresFn;
}

/** The int8 kernel bound to `memory` (same signature; int32 results), or null without SIMD. */
export function instantiateInt8Kernel(memory: WasmMemory): ScoresFn | null {
  if (!wasm || !wasm.validate(KERNEL_I8_BYTES)) return null;
  const instance = new wasm.Instance(new wasm.Module(KERNEL_I8_BYTES), { env: { memory } });
  return instance.exports.dots as ScoresFn;
}

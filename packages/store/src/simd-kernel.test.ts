import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createMemory, instantiateInt8Kernel } from './simd-kernel.js';

it('the int8 kernel computes every row dot product exactly (int16 query × int8 rows)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 9 }), fc.integer(), (blocks, rows, seed) => {
      const stride = blocks * 16;
      let s = seed >>> 0;
      const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0);
      const mem = createMemory(65536)!;
      const kernel = instantiateInt8Kernel(mem)!;
      const q = new Int16Array(mem.buffer, 0, stride);
      const out = new Int32Array(mem.buffer, 1024, Math.max(rows, 1));
      const m = new Int8Array(mem.buffer, 4096, rows * stride);
      for (let i = 0; i < stride; i++) q[i] = (next() % 8191) - 4095;
      for (let i = 0; i < rows * stride; i++) m[i] = (next() % 255) - 127;
      kernel(0, 4096, stride, rows, 1024);
      for (let r = 0; r < rows; r++) {
        let dot = 0;
        for (let d = 0; d < stride; d++) dot += q[d]! * m[r * stride + d]!;
        expect(out[r]).toBe(dot);
      }
    }),
    { numRuns: 100 },
  );
});

import { describe, expect, it } from 'vitest';
import { SharedBufferPool } from '../../../main/shared/shared-buffers.js';

describe('SharedBufferPool', () => {
  it('hands a kept buffer back for a request it fits (at most twice the size), a new one otherwise, and keeps the newest', () => {
    const pool = new SharedBufferPool(2);
    const a = pool.take(1000);
    expect(a.byteLength).toBe(1000);
    pool.give(a);
    expect(pool.take(3000)).not.toBe(a); // too small
    expect(pool.take(400)).not.toBe(a); // more than twice the size
    expect(pool.take(600)).toBe(a);
    expect(pool.take(600)).not.toBe(a); // taken: not handed out twice
    const [b, c, d] = [pool.take(10), pool.take(10), pool.take(10)];
    pool.give(b);
    pool.give(c);
    pool.give(d); // b, the oldest, goes
    const again = [pool.take(10), pool.take(10), pool.take(10)];
    expect(again[0]).toBe(c);
    expect(again[1]).toBe(d);
    expect(again[2]).not.toBe(b);
  });
});

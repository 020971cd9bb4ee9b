import { describe, expect, it } from 'vitest';
import { fuseRankings } from '../../src/knowledge/retrieval.ts';

describe('fuseRankings', () => {
  it('ranks ids found high in both lists above ids found in one', () => {
    const fused = fuseRankings([[1, 2, 3], [3, 1, 4]], 60);
    expect(fused.map((entry) => entry.id)).toEqual([1, 3, 2, 4]);
    expect(fused[0]?.score).toBeCloseTo(1 / 61 + 1 / 62);
    expect(fused[3]?.score).toBeCloseTo(1 / 63);
  });

  it('breaks ties by the smaller id and handles empty lists', () => {
    expect(fuseRankings([[7], [5]]).map((entry) => entry.id)).toEqual([5, 7]);
    expect(fuseRankings([[], []])).toEqual([]);
    expect(fuseRankings([[9, 8], []]).map((entry) => entry.id)).toEqual([9, 8]);
  });
});

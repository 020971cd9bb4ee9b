import { describe, expect, it } from 'vitest';
import { isUuid } from '../../src/lib/uuid.ts';

describe('isUuid', () => {
  it('accepts the 8-4-4-4-12 hex spelling in either case', () => {
    expect(isUuid('3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b')).toBe(true);
    expect(isUuid('3F2B8C1E-9A4D-4E6F-8B2A-1C3D5E7F9A0B')).toBe(true);
  });

  it('refuses what PostgreSQL would reject for a uuid column', () => {
    for (const value of ['', '42', '-'.repeat(36), '3f2b8c1e9a4d4e6f8b2a1c3d5e7f9a0b00000', '3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0g']) {
      expect(isUuid(value)).toBe(false);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { documentedLimitRows, securityLimitRows } from '../../scripts/build/security-limits.js';

describe("SECURITY.md's limits in force", () => {
  it('are the defaults the code enforces, row for row (npx tsx scripts/build/security-limits.ts writes them)', () => {
    expect(documentedLimitRows()).toEqual(securityLimitRows());
  });

  it('reads a table that differs from the code as different', () => {
    const text = `x\n## Limits in force (defaults)\n\n| limit | value |\n| --- | --- |\n| sessions kept | 32 |\n`;
    expect(documentedLimitRows(text)).toEqual([['sessions kept', '32']]);
    expect(documentedLimitRows(text)).not.toEqual(securityLimitRows());
  });
});

import { isUuid, newAuctionId } from '../domain/ids';

describe('auction ids', () => {
  it('are UUIDv7: valid ids whose text order is the order they were made in', () => {
    const ids = Array.from({ length: 5000 }, () => newAuctionId());
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // The first 48 bits are the time in milliseconds.
    expect(Math.abs(parseInt(newAuctionId().replace('-', '').slice(0, 12), 16) - Date.now())).toBeLessThan(1000);
  });
});

import { BoundedMap } from '../lib/bounded-map';

describe('BoundedMap', () => {
  it('empties itself when a new key would pass its bound, not when a present key is set again', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2);
    m.set('b', 3);
    expect([...m]).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
    m.set('c', 4);
    expect([...m]).toEqual([['c', 4]]);
  });
});

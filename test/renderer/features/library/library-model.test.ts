import { describe, expect, it } from 'vitest';
import { formatBox, formatResolution } from '../../../../renderer/src/features/library/model/library-model';

// Search, filters, orders and time series are main's (library:query): test/main/library/catalog-query.test.ts.

describe('library list model', () => {
  it('formats resolutions and footprints with units', () => {
    expect(formatResolution(10)).toBe('10 m');
    expect(formatResolution(2500)).toBe('2.5 km');
    expect(formatResolution(null)).toBe('—');
    expect(formatBox([151.1, -33.9, 151.2, -33.8])).toBe('151.100°E – 151.200°E, 33.900°S – 33.800°S');
    expect(formatBox(null)).toBe('unknown footprint');
  });
});

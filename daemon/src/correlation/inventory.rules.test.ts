import { describe, expect, it } from 'vitest';
import { hardwareChangeTitle, hardwareDiff, inventoryOf } from './inventory.rules.js';

const base = {
  schema_version: 1,
  collected_at: '2026-06-03T09:00:00.000+10:00',
  processor: [{ name: 'Xeon', cores: 4, logical_processors: 8 }],
  motherboard: { product: 'X11', manufacturer: 'Supermicro' },
  memory_gb: 32,
  disks: [
    { friendly_name: 'SSD A', media_type: 'SSD', size_gb: 480 },
    { friendly_name: 'HDD B', media_type: 'HDD', size_gb: 2000 },
  ],
  video: [{ name: 'Matrox' }],
  ipv4: ['10.0.0.21'],
};

describe('hardwareDiff', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['nothing but non-hardware fields', { ...base, collected_at: 'later', ipv4: ['10.0.0.99'] }, []],
    ['disks reordered', { ...base, disks: [...base.disks].reverse() }, []],
    ['motherboard keys reordered', { ...base, motherboard: { manufacturer: 'Supermicro', product: 'X11' } }, []],
    ['memory', { ...base, memory_gb: 16 }, ['memory_gb']],
    ['a disk removed and video changed', { ...base, disks: [base.disks[0]], video: [{ name: 'Other' }] }, ['disks', 'video']],
    ['processor cores', { ...base, processor: [{ name: 'Xeon', cores: 8, logical_processors: 16 }] }, ['processor']],
    ['motherboard', { ...base, motherboard: { product: 'X12', manufacturer: 'Supermicro' } }, ['motherboard']],
  ])('%s', (_name, next, expected) => {
    expect(hardwareDiff(base, next)).toEqual(expected);
  });
  it('reports nothing for the first snapshot', () => {
    expect(hardwareDiff(null, base)).toEqual([]);
  });
  it('names the changed parts in the title', () => {
    expect(hardwareChangeTitle('RDS01', ['memory_gb', 'disks'])).toBe('Hardware changed on RDS01: memory, disks');
  });
  it('reads the inventory object only', () => {
    expect(inventoryOf({ inventory: base })).toBe(base);
    expect(inventoryOf({ inventory: 'x' })).toBeNull();
    expect(inventoryOf(undefined)).toBeNull();
  });
});

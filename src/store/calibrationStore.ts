// Where a device's backend calibration is kept: one record per scale in its own small IndexedDB
// database, apart from the runs (`star-lab`), so that deleting runs or migrating their schema never
// touches it and its figures never travel in a bundle. A record read back is checked against its
// schema; one that fails (an older build's, a hand-edited one) reads as missing, so the scale is measured again.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { Calibration, Scale } from '../lab/backendChoice.ts';
import { checkRecord } from './records.ts';
import { CalibrationSchema } from './calibrationRecords.ts';

export const CALIBRATION_DB = 'star-lab-device';

interface CalibrationDB extends DBSchema {
  calibrations: { key: string; value: Calibration };
}

export class CalibrationStore {
  private constructor(private readonly db: IDBPDatabase<CalibrationDB>) {}

  static async open(name = CALIBRATION_DB): Promise<CalibrationStore> {
    if (typeof indexedDB === 'undefined') throw new Error('this browser has no IndexedDB');
    const db = await openDB<CalibrationDB>(name, 1, {
      upgrade(db) {
        db.createObjectStore('calibrations', { keyPath: 'scale' });
      },
    });
    return new CalibrationStore(db);
  }

  /** the stored calibration of `scale`, or null (none, or unreadable) */
  async get(scale: Scale): Promise<Calibration | null> {
    const raw: unknown = await this.db.get('calibrations', scale);
    if (raw === undefined) return null;
    const checked = checkRecord(CalibrationSchema, raw);
    return checked.ok ? checked.value : null;
  }

  async put(calibration: Calibration): Promise<void> {
    await this.db.put('calibrations', calibration);
  }

  async clear(): Promise<void> {
    await this.db.clear('calibrations');
  }

  close(): void {
    this.db.close();
  }
}

// Where a teacher's classes are kept: one record per class — its lesson, its name and the result
// codes it accepted — in its own small IndexedDB database, apart from the runs (`star-lab`), so a class
// survives deleting runs and never travels in a run bundle. A class this machine ran seeds for keeps the
// sitting's seeds and size, so its runs still join it after a reload. Only the codes are stored: a class read back
// is decoded again (src/lessons/lessonClass.ts), so a record edited by hand is checked like a pasted link.
import * as v from 'valibot';
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { checkRecord } from './records.ts';

export const CLASS_DB = 'star-lab-classes';

export const ClassRecordSchema = v.object({
  id: v.pipe(v.string(), v.minLength(1)),
  lesson: v.pipe(v.string(), v.minLength(1)),
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(120)),
  codes: v.array(v.string()),
  /** the size it pools (src/lessons/lessonClass.ts): a link of another size is refused; absent in a class kept before
   * sizes were kept */
  size: v.optional(v.picklist(['full', 'smoke', 'other'])),
  /** a sitting this machine ran for the class: its seeds and size, so it can be continued after a reload */
  sitting: v.optional(v.object({
    seeds: v.array(v.pipe(v.number(), v.integer(), v.minValue(0))),
    smoke: v.boolean(),
    /** the Seeds an arm it last ran with, shown again after a reload */
    seedsAnArm: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    /** it was running when last kept: the class view reopens and continues it after a reload */
    running: v.optional(v.boolean()),
  })),
  updatedAt: v.pipe(v.number(), v.finite()),
});
export type ClassRecord = v.InferOutput<typeof ClassRecordSchema>;

interface ClassDB extends DBSchema {
  classes: { key: string; value: ClassRecord; indexes: { lesson: string } };
}

export class ClassStore {
  private constructor(private readonly db: IDBPDatabase<ClassDB>) {}

  static async open(name = CLASS_DB): Promise<ClassStore> {
    if (typeof indexedDB === 'undefined') throw new Error('this browser has no IndexedDB');
    const db = await openDB<ClassDB>(name, 1, {
      upgrade(db) {
        db.createObjectStore('classes', { keyPath: 'id' }).createIndex('lesson', 'lesson');
      },
    });
    return new ClassStore(db);
  }

  /** a lesson's classes, newest first; unreadable records are skipped */
  async list(lesson: string): Promise<ClassRecord[]> {
    const raw: unknown[] = await this.db.getAllFromIndex('classes', 'lesson', lesson);
    return raw.flatMap((r) => {
      const checked = checkRecord(ClassRecordSchema, r);
      return checked.ok ? [checked.value] : [];
    }).sort((a, b) => b.updatedAt - a.updatedAt);
  }

  async put(record: ClassRecord): Promise<void> {
    const checked = checkRecord(ClassRecordSchema, record);
    if (!checked.ok) throw new Error(`a class record is not valid: ${checked.reason}`);
    await this.db.put('classes', checked.value);
  }

  async delete(id: string): Promise<void> {
    await this.db.delete('classes', id);
  }

  close(): void {
    this.db.close();
  }
}

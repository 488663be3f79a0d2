// A teacher's classes in their own IndexedDB database (fake-indexeddb): several a lesson, named, newest
// first, deletable; a record that does not fit the schema is skipped, not trusted.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openDB } from 'idb';
import { ClassStore } from '../../src/store/classStore.ts';

let count = 0;
const freshName = () => `star-lab-classes-test-${++count}`;

describe('the class store', () => {
  it('keeps several named classes a lesson, newest first, and deletes one', async () => {
    const name = freshName();
    const store = await ClassStore.open(name);
    await store.put({ id: 'a', lesson: 'seeds', name: 'Monday', codes: ['v1.x.00000000'], updatedAt: 1 });
    await store.put({ id: 'b', lesson: 'seeds', name: 'Tuesday', codes: [], updatedAt: 2 });
    await store.put({ id: 'c', lesson: 'hard-only', name: 'Other', codes: [], updatedAt: 3 });
    expect((await store.list('seeds')).map((c) => c.name)).toEqual(['Tuesday', 'Monday']);
    await store.delete('b');
    expect((await store.list('seeds')).map((c) => c.id)).toEqual(['a']);
    await expect(store.put({ id: 'd', lesson: 'seeds', name: '', codes: [], updatedAt: 4 })).rejects.toThrow(/not valid/);
    store.close();
    const raw = await openDB(name, 1);
    await raw.put('classes', { id: 'e', lesson: 'seeds', name: 'edited', codes: 'not a list', updatedAt: 5 });
    raw.close();
    const again = await ClassStore.open(name);
    expect((await again.list('seeds')).map((c) => c.id)).toEqual(['a']);
    again.close();
  });
});

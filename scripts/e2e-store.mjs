// Reading the page's IndexedDB from the browser tests (the lab's own store, 'star-lab').

/** a run's stored metric points, in step order (the metrics store is keyed [runId, step]) */
export const storedPoints = (page, runId) =>
  page.evaluate(
    (id) =>
      new Promise((ok, fail) => {
        const open = indexedDB.open('star-lab');
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const all = open.result.transaction('metrics').objectStore('metrics').getAll(IDBKeyRange.bound([id], [id, []]));
          all.onsuccess = () => (open.result.close(), ok(all.result));
        };
      }),
    runId,
  );

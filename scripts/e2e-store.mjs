// The page's IndexedDB (the lab's own store, 'star-lab') read or written from the browser tests, by
// the page's own indexedDB: one function handed to page.evaluate (the page's CSP forbids eval, and
// this is not eval), its operation named by `op`.

/** runs in the page: one operation on the lab's store, which is closed again afterwards */
const inStore = ([op, arg]) =>
  new Promise((ok, fail) => {
    const open = indexedDB.open('star-lab');
    open.onerror = () => fail(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const done = (value) => (db.close(), ok(value));
      const answer = (request) => {
        request.onsuccess = () => done(request.result);
        request.onerror = () => fail(request.error);
      };
      // metrics and checkpoints are keyed [runId, step]
      const ofRun = () => IDBKeyRange.bound([arg], [arg, []]);
      if (op === 'counts') {
        const names = ['runs', 'metrics', 'checkpoints', 'episodes'].filter((n) => db.objectStoreNames.contains(n));
        const tx = db.transaction(names);
        const counts = {};
        for (const n of names) tx.objectStore(n).count().onsuccess = (e) => (counts[n] = e.target.result);
        tx.oncomplete = () => done(counts);
      } else if (op === 'points') answer(db.transaction('metrics').objectStore('metrics').getAll(ofRun()));
      else if (op === 'run') answer(db.transaction('runs').objectStore('runs').get(arg));
      else if (op === 'runs') answer(db.transaction('runs').objectStore('runs').getAll());
      else if (op === 'checkpointKeys')
        answer(
          db
            .transaction('checkpoints')
            .objectStore('checkpoints')
            .getAllKeys(arg === undefined ? undefined : ofRun()),
        );
      else if (op === 'writeQueue') {
        const tx = db.transaction('queue', 'readwrite');
        tx.objectStore('queue').put(arg, 'current');
        tx.oncomplete = () => done(true);
        tx.onerror = () => fail(tx.error);
      } else fail(new Error(`unknown store operation ${op}`));
    };
  });

/** a run's stored metric points, in step order */
export const storedPoints = (page, runId) => page.evaluate(inStore, ['points', runId]);

/** a stored run record as it is (undefined when missing) */
export const storedRun = (page, runId) => page.evaluate(inStore, ['run', runId]);
/** every stored run record */
export const storedRuns = (page) => page.evaluate(inStore, ['runs']);

/** runs in the page: this device's stored backend calibrations ('star-lab-device', src/store/calibrationStore.ts);
 * `clear` deletes them first */
const inCalibrations = (clear) =>
  new Promise((ok, fail) => {
    const open = indexedDB.open('star-lab-device');
    open.onerror = () => fail(open.error);
    open.onupgradeneeded = () => open.result.createObjectStore('calibrations', { keyPath: 'scale' });
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction('calibrations', 'readwrite');
      if (clear) tx.objectStore('calibrations').clear();
      const all = tx.objectStore('calibrations').getAll();
      tx.oncomplete = () => (db.close(), ok(all.result));
      tx.onerror = () => fail(tx.error);
    };
  });

/** this device's stored backend calibrations, one per scale measured */
export const storedCalibrations = (page) => page.evaluate(inCalibrations, false);

/** forgets them, so that the next page measures again */
export const clearCalibrations = (page) => page.evaluate(inCalibrations, true);

/** the lab store's record counts: { runs, metrics, checkpoints, episodes } */
export const storeCounts = (page) => page.evaluate(inStore, ['counts']);

/** the stored checkpoints' keys, [runId, step]: every run's, or `runId`'s */
export const checkpointKeys = (page, runId) => page.evaluate(inStore, ['checkpointKeys', runId]);

/** writes the run queue's record as it is (to store a corrupt one) */
export const writeQueueRecord = (page, value) => page.evaluate(inStore, ['writeQueue', value]);

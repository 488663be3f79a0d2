// What the page says a resumed run kept, read from the store rather than assumed: the resume notice
// once claimed "the curve up to it is kept" while a step before the checkpoint was missing.

/** What a run resumed from its checkpoint at step `from` kept of its curve (its stored steps), in words. */
export function keptCurve(steps: readonly number[], from: number): string {
  const missing = Array.from({ length: from }, (_, i) => i + 1).filter((s) => !steps.includes(s));
  if (missing.length === 0) return `its curve up to step ${from} is kept, and the steps after it are trained again`;
  const shown =
    missing.length > 6 ? `${missing.slice(0, 5).join(', ')}, … (${missing.length} in all)` : missing.join(', ');
  const one = missing.length === 1;
  return `its curve up to step ${from} is kept except step${one ? '' : 's'} ${shown}, which ${one ? 'was' : 'were'} not saved`;
}

/**
 * What the page says while and after it resumes a run by itself, naming the run as the learner knows it (`name`: "your
 * run", "the 10 % tool failures arm of lesson 3") — never by its internal id, and never asking the learner to start
 * what the page is already resuming.
 */
export const resumeWords = {
  /** while the worker loads the checkpoint */
  resuming: (why: string, name: string, from: number) => `${why}: resuming ${name} from step ${from}…`,
  resumed: (why: string, name: string, from: number, curve: string) =>
    `${why}: ${name} resumed by itself from step ${from}; ${curve}.`,
  failed: (why: string, name: string, error: string) => `${why}; ${name} could not be resumed: ${error}`,
  /** it died before its first checkpoint: a lesson starts its arm again by itself; a Lab run waits for the learner */
  noCheckpoint: (why: string, name: string, restartsByItself: boolean) =>
    restartsByItself
      ? `${why} before ${name} saved its first checkpoint: it starts again from the beginning by itself.`
      : `${why} before ${name} saved its first checkpoint, so there is nothing to resume from: Start trains it again ` +
        'from the beginning.',
  /** a worker restarted too often */
  tooOften: (why: string, name: string, times: number) =>
    `${why} again. ${name[0].toUpperCase()}${name.slice(1)} was resumed ${times} times already; resume it from the ` +
    'run list when ready.',
};

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

// The address bar holds the setup and the view (src/lab/urlState.ts). Views are history entries, so
// Back and Forward move between them; settings are edited in place, so Back never undoes one. The
// entries the page writes carry OWN_ENTRY as their state: an entry without it was typed or opened.
import type { LabConfig } from '../lab/config.ts';
import { parseHash, serializeHash, type ParsedHash, type Route } from '../lab/urlState.ts';

const OWN_ENTRY = { starLab: 1 } as const;

/** Writes the setup and the view to the address: a new history entry (`push`) or in place. */
export function writeAddress(config: LabConfig, route: Route, push = false): void {
  const url = serializeHash(config, route) || location.pathname + location.search;
  if (push) history.pushState(OWN_ENTRY, '', url);
  else history.replaceState(OWN_ENTRY, '', url);
}

/** Reads the address as a link. A malformed one is replaced by the setup it was read as (the notices
 *  say what changed), so a copy or a reload does not carry the error on. */
export function readAddress(): ParsedHash {
  const parsed = parseHash(location.hash);
  if (parsed.notices.length) writeAddress(parsed.config, parsed.route);
  else history.replaceState(OWN_ENTRY, '', location.href);
  return parsed;
}

/** whether the current entry is one the page wrote (Back / Forward), not a link typed into the bar */
export function isOwnEntry(): boolean {
  return (history.state as typeof OWN_ENTRY | null)?.starLab === OWN_ENTRY.starLab;
}

/** Calls `handle` on Back / Forward and on a hash typed into the bar (Chromium fires both events for one change: keep
 * `handle` idempotent). */
export function onAddressChange(handle: () => void): void {
  window.addEventListener('popstate', handle);
  window.addEventListener('hashchange', handle);
}

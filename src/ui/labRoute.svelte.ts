// The page's address: the experiment's setup and the view shown, both mirrored in the URL hash, so a link
// reproduces them (the pure part: src/lab/urlState.ts; the browser's address bar: addressBar.ts). Only this
// class writes them; the run player reads the setup when a run starts.
import { defaultConfig, type LabConfig } from '../lab/config.ts';
import { parseHash, serializeHash, type Route, type UrlNotice, type View } from '../lab/urlState.ts';
import { isOwnEntry, onAddressChange, readAddress, writeAddress } from './addressBar.ts';

/** what the page keeps in localStorage starts with this; the welcome marks a visit under it */
const STORED_PREFIX = 'star-lab:';
let firstVisit: boolean | null = null;

/** Whether nothing of this lab was stored before this page load (asked once per load; marks the visit). Blocked
 *  storage keeps nothing, so every visit is a first one. */
export function isFirstVisit(): boolean {
  if (firstVisit !== null) return firstVisit;
  try {
    firstVisit = !Object.keys(localStorage).some((k) => k.startsWith(STORED_PREFIX));
    localStorage.setItem(`${STORED_PREFIX}visited`, '1');
  } catch {
    firstVisit = true;
  }
  return firstVisit;
}

export class LabRoute {
  config = $state<LabConfig>(defaultConfig());
  /** which view is shown (and which finding), mirrored in the URL hash beside the config */
  route = $state<Route>({ view: 'lab', finding: null });
  /** what was wrong with the link read (corrected in the address) */
  notices = $state<UrlNotice[]>([]);

  /** `onScaleChange`: the backend choice is per scale, so a new scale asks for it again */
  constructor(private readonly onScaleChange: () => void) {}

  /** Reads the address, and follows it as it changes (Back, Forward, a pasted link). */
  boot(): void {
    this.readHash();
    onAddressChange(() => this.onAddressChange());
  }

  /** Applies a config edit and writes it to the URL (only non-default values). */
  setConfig(patch: Partial<LabConfig>): void {
    const scale = this.config.scale;
    this.config = { ...this.config, ...patch };
    this.writeHash();
    if (this.config.scale !== scale) this.onScaleChange();
  }

  resetConfig(): void {
    this.setConfig(defaultConfig());
  }

  /**
   * Shows a view (and a finding on the Findings view, a lesson on the Lessons view) as a new history entry, so
   * Back returns to the last; the URL keeps it, so a link opens it.
   */
  setRoute(view: View, finding: string | null = view === 'findings' ? this.route.finding : null,
    lesson: string | null = view === 'lessons' ? (this.route.lesson ?? null) : null): void {
    const moved = view !== this.route.view || finding !== this.route.finding || lesson !== (this.route.lesson ?? null);
    this.route = { view, finding, lesson };
    this.writeHash(moved);
  }

  /**
   * A lesson's class view (`#lesson=<id>&class=<codes>`): its accepted codes, comma-joined, kept in the address
   * so the link reproduces the class (replaces the entry: adding a learner is no step back).
   */
  setLessonClass(codes: string | null): void {
    this.route = { ...this.route, result: null, lessonClass: codes };
    this.writeHash(false);
  }

  /** the address of a view at the current setup (the tabs' links) */
  hrefFor(view: View): string {
    const finding = view === 'findings' ? this.route.finding : null;
    const lesson = view === 'lessons' ? (this.route.lesson ?? null) : null;
    return serializeHash(this.config, { view, finding, lesson }) || '#';
  }

  dismissNotices(): void {
    this.notices = [];
  }

  private writeHash(push = false): void {
    writeAddress(this.config, this.route, push);
  }

  /**
   * Back / Forward between the page's own entries move the view and keep the setup as it is now; any other
   * address is a link, read whole.
   */
  private onAddressChange(): void {
    if (!isOwnEntry()) return this.readHash();
    const { route } = parseHash(location.hash);
    const now = this.route;
    const same = route.view === now.view && route.finding === now.finding
      && (route.lesson ?? null) === (now.lesson ?? null) && (route.result ?? null) === (now.result ?? null)
      && (route.lessonClass ?? null) === (now.lessonClass ?? null) && (route.run ?? null) === (now.run ?? null);
    if (!same) this.route = route;
    this.writeHash(); // the entry's address now carries the current setup
  }

  /** Reads a link (a malformed one is corrected in the address: addressBar.ts). */
  private readHash(): void {
    const { config, route, notices } = readAddress();
    // a first visit (no link, nothing stored) opens on the welcome, kept in the address so a reload stays there
    if (isFirstVisit() && !location.hash.replace(/^#/, '')) {
      route.view = 'welcome';
      writeAddress(config, route);
    }
    const scale = this.config.scale;
    this.config = config;
    if (config.scale !== scale) this.onScaleChange();
    this.route = route;
    this.notices = notices;
  }
}

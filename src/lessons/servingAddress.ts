// Whether the links a page hands out (a lesson's sheet and QR code, a learner's result link) can be opened from
// another device: an address on the loopback (127.0.0.1, localhost, ::1) names the computer that opens it, so a
// learner's phone reading the sheet's QR code reaches itself, not the lab. The page cannot know its own network
// address; it says where to find it. Pure: the sheet and the result links word it.

/** a host that only this computer reaches: localhost (and its subdomains), 127.0.0.0/8, ::1, 0.0.0.0 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    /^127(\.\d{1,3}){3}$/.test(h) ||
    h === '::1' ||
    /^(0{1,4}:){7}0{0,3}1$/.test(h) ||
    h === '0.0.0.0'
  );
}

export interface LoopbackAdvice {
  /** the address as this page has it */
  here: string;
  /** the address to give learners, with a placeholder for this computer's network address */
  toUse: string;
  /** the commands that serve the lab on the network */
  devServer: string;
  build: string;
}

/**
 * Advice for a page served on the loopback (null on any other host): the address to use instead — the same port and
 * path on this computer's network address, which `npm start -- --host` prints as its "Network" line — or the build
 * put on any static host.
 */
export function loopbackAdvice(url: string): LoopbackAdvice | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (!isLoopbackHost(u.hostname)) return null;
  return {
    here: `${u.protocol}//${u.host}`,
    toUse: `${u.protocol}//<this computer's network address>${u.port ? `:${u.port}` : ''}${u.pathname}`,
    devServer: 'npm start -- --host',
    build: 'npm run build',
  };
}

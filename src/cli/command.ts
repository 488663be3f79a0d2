export interface Command {
  name: string;
  /** one line for the command list */
  summary: string;
  /** full usage text printed by `--help` */
  help: string;
  /** returns the process exit code */
  run(args: string[]): Promise<number>;
}

/** Minimal `--key value` / `--flag` parser: the CLI has few options, so no dependency for it. */
export function parseFlags(args: string[]): { flags: Map<string, string | true>; positional: string[] } {
  const flags = new Map<string, string | true>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else if (i + 1 < args.length && !args[i + 1].startsWith('--')) flags.set(a.slice(2), args[++i]);
      else flags.set(a.slice(2), true);
    } else positional.push(a);
  }
  return { flags, positional };
}

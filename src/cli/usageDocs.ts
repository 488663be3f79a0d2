// docs/cli.md shows each command's usage block; the block is the command's `help` (one source).
// usageBlocks finds the blocks (the first ``` or ```text fence under a command's "## name" / "### name"
// heading), withUsageBlocks rewrites them from the commands' help: `npx tsx scripts/sync-cli-docs.ts`
// runs it, and test/cli/usageDocs.test.ts fails while the two differ.
import type { Command } from './command.ts';

export interface UsageBlock {
  /** the block's text, without its fences */
  text: string;
  /** offsets of the text inside the markdown */
  start: number;
  end: number;
}

/** the usage block under each command's heading, by command name (a command without one is missing) */
export function usageBlocks(markdown: string, names: readonly string[]): Map<string, UsageBlock> {
  const blocks = new Map<string, UsageBlock>();
  for (const name of names) {
    const heading = new RegExp(`^#{2,3} \`?${name.replace(/[-]/g, '\\-')}\`?\\s*$`, 'm').exec(markdown);
    if (!heading) continue;
    const from = heading.index + heading[0].length;
    const next = /^#{1,3} /m.exec(markdown.slice(from));
    const section = markdown.slice(from, next ? from + next.index : markdown.length);
    // fences pair up (open, close): the first block opened with ``` or ```text is the usage (```sh examples are not)
    const fences = [...section.matchAll(/^```(\w*)\n?/gm)];
    for (let i = 0; i + 1 < fences.length; i += 2) {
      if (fences[i][1] !== '' && fences[i][1] !== 'text') continue;
      const start = from + fences[i].index + fences[i][0].length;
      const end = from + fences[i + 1].index - 1; // the newline before the closing fence
      blocks.set(name, { text: markdown.slice(start, end), start, end });
      break;
    }
  }
  return blocks;
}

/** `markdown` with every command's usage block replaced by its help (throws when a command has no block) */
export function withUsageBlocks(markdown: string, commands: readonly Command[]): string {
  const blocks = usageBlocks(markdown, commands.map((c) => c.name));
  const missing = commands.filter((c) => !blocks.has(c.name)).map((c) => c.name);
  if (missing.length > 0)
    throw new Error(
      `docs/cli.md has no usage block for ${missing.join(', ')} (a "### name" heading, then a \`\`\`text block)`,
    );
  let out = markdown;
  for (const c of [...commands].sort((a, b) => blocks.get(b.name)!.start - blocks.get(a.name)!.start)) {
    const b = blocks.get(c.name)!;
    out = out.slice(0, b.start) + c.help + out.slice(b.end);
  }
  return out;
}

// Rewrites docs/cli.md's usage blocks from the commands' --help (src/cli/usageDocs.ts): `npx tsx
// scripts/sync-cli-docs.ts`.
import { readFileSync, writeFileSync } from 'node:fs';
import { commands } from '../src/cli/commands/index.ts';
import { withUsageBlocks } from '../src/cli/usageDocs.ts';

const path = 'docs/cli.md';
const before = readFileSync(path, 'utf8');
const after = withUsageBlocks(before, commands);
writeFileSync(path, after);
console.log(
  before === after
    ? `${path}: every usage block already matches its command's --help`
    : `${path}: usage blocks rewritten from --help`,
);

// The registry of CLI commands. Add one line per command module.
import type { Command } from '../command.ts';
import { benchCommand } from './bench.ts';

export const commands: Command[] = [benchCommand];

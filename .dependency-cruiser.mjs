// The house's layers (docs/architecture.md, "The rules"), checked by dependency-cruiser in `npm run lint`:
// a room imports only the rooms its row names, nothing imports in a circle, the pure rooms never reach
// tfjs (not even through another room), and code that runs in the browser never imports Node's modules.
// Why dependency-cruiser rather than eslint-plugin-boundaries: it checks circles and what a module
// *reaches* (tfjs through a room that is allowed) as well as direct imports, it reads the .svelte files
// and type-only imports (the kvcache ⇄ transformer circle was a type import), and it runs once over the
// graph in a few seconds instead of once per file inside eslint. 17.x is its last line for Node 20.

/** Rooms from the bottom up. A room may import only rooms before it in this list, and of those only the
 *  ones its row names (the check below refuses a row naming a later room: the table cannot hold a circle). */
export const ROOMS = [
  ['env', [], 'the TravelPlanner sandbox: world, queries, tools, evaluator, rewards (pure)'],
  ['stats', ['env'], 'tests of differences, power, intervals (pure; env for its seeded Rng)'],
  ['lab', ['env', 'stats'], "the lab's state: config, URL state, the queue, backend choice, metrics (pure)"],
  ['findings', ['env', 'stats', 'lab'], 'the seven findings: grids, tables, gains, calls, plans, costs (pure)'],
  ['lessons', ['env', 'stats', 'lab', 'findings'], 'lessons: settings, reference bands, takeaways (pure)'],
  ['model', ['env'], 'the transformer policy on tfjs'],
  ['agent', ['env', 'model'], 'token language, encoding, the rollout loop'],
  ['sandbox', ['env', 'lab', 'agent'], "the Sandbox's hand play, world tables and setup (pure)"],
  ['rl', ['env', 'stats', 'lab', 'model', 'agent'], 'SFT, GRPO, DAPO, ARPO and the trainer (tfjs)'],
  ['store', ['env', 'lab'], 'IndexedDB records and their file formats (runs CSV, bundles)'],
  ['node', ['env', 'model', 'rl'], 'Node-only pieces the CLI and the bench share: checkpoints on disk, tfjs in Node'],
  ['worker', ['env', 'stats', 'lab', 'model', 'agent', 'rl', 'store'], 'the training Web Worker'],
  ['ui', ['env', 'stats', 'lab', 'findings', 'lessons', 'sandbox', 'store', 'worker'], 'Svelte views (never tfjs)'],
  ['bench', ['env', 'stats', 'lab', 'model', 'agent', 'rl', 'store', 'node', 'worker'], 'benchmark suites (bench/)'],
  ['cli', ['env', 'stats', 'lab', 'findings', 'lessons', 'sandbox', 'model', 'agent', 'rl', 'store', 'node', 'worker', 'bench'], 'the Node CLI'],
];
/** rooms that must stay pure: no tfjs reached, no DOM (the DOM half is eslint's no-restricted-globals) */
const PURE = ['env', 'stats', 'lab', 'findings', 'lessons', 'sandbox'];
/** rooms whose code the page or the worker bundles: no `node:` modules (src/env/node/ is Node's side of env) */
const BROWSER = ['env', 'stats', 'lab', 'findings', 'lessons', 'sandbox', 'model', 'agent', 'rl', 'store', 'worker', 'ui'];

const dir = (room) => (room === 'bench' ? 'bench/' : `src/${room}/`);
const names = ROOMS.map(([room]) => room);
for (const [room, allowed] of ROOMS) {
  for (const other of allowed) {
    if (!names.includes(other)) throw new Error(`.dependency-cruiser.mjs: ${room} names an unknown room ${other}`);
    if (names.indexOf(other) >= names.indexOf(room)) throw new Error(`.dependency-cruiser.mjs: ${room} may not import ${other}, a room above it (that would allow a circle)`);
  }
}
const anyOf = (rooms) => `^(${rooms.map(dir).join('|')})`;
/** every path that belongs to some room, and the rest of the tree a room must not reach into */
const ROOM_CODE = '^(src/|bench/|scripts/)';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...ROOMS.map(([room, allowed]) => ({
      name: `layer-${room}`,
      severity: 'error',
      comment: `${dir(room)} (${ROOMS.find(([r]) => r === room)[2]}) may import only ${allowed.length ? allowed.map(dir).join(', ') : 'npm packages'}: a shared piece goes in the lowest room that needs it (docs/architecture.md, "The rules")`,
      from: { path: `^${dir(room)}` },
      to: { path: ROOM_CODE, pathNot: anyOf([room, ...allowed]) },
    })),
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'modules that import each other, directly or round a loop: move the shared piece (often a type) into its own module below both',
      from: {},
      to: { circular: true },
    },
    {
      name: 'pure-rooms-never-reach-tfjs',
      severity: 'error',
      comment: `${PURE.map(dir).join(', ')} are pure TS: they run in Node tests and the page without tfjs, so nothing they import may lead to it`,
      from: { path: anyOf(PURE) },
      to: { path: '^node_modules/@tensorflow/', reachable: true },
    },
    {
      name: 'page-never-reaches-tfjs',
      severity: 'error',
      comment: 'the page talks to the worker through comlink and never loads tfjs itself (src/ui, src/main.ts)',
      from: { path: '^(src/ui/|src/main\\.ts$)' },
      to: { path: '^node_modules/@tensorflow/', reachable: true },
    },
    {
      name: 'browser-code-no-node-modules',
      severity: 'error',
      comment: `${BROWSER.map(dir).join(', ')} run in the page or the worker: Node's own modules (fs, path, …) belong in src/node, src/cli or a node/ folder`,
      from: { path: anyOf(BROWSER), pathNot: '/node/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'an import that resolves to no file (a moved module whose importer was not updated)',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // type-only imports count: a type import up a layer couples the rooms as much as a value import does
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    // resolve packages through their `exports` (pure-rand's subpaths, svelte/internal, vite) as Vite and Node do
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'browser', 'default', 'types'], mainFields: ['module', 'main', 'types'] },
    exclude: { path: '(^|/)(dist|public|results|data)/' },
    cache: { folder: 'node_modules/.cache/dependency-cruiser', strategy: 'content' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

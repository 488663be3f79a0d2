// The glossary's entries (glossary.ts reads them): one plain entry per term the page shows, one or two sentences a
// newcomer can read without knowing RL or statistics. A knob's own line stays in the settings table (config.ts) and a
// metric's in the metrics catalogue (metrics.ts): an entry for one of those names its source instead of repeating it.
// Pure data: no tfjs, no DOM.
import type { SettingKey } from './config.ts';

export type Source = { text: string } | { setting: SettingKey } | { metric: string };
export interface Declared {
  term: string;
  names?: readonly string[];
  from: Source;
}

export const DECLARED: Readonly<Record<string, Declared>> = {
  agent: {
    term: 'Agent',
    names: ['agent', 'policy'],
    from: {
      text: 'The small language model being trained: it reads a travel request, calls tools (flights, hotels, restaurants, distances) and writes a day-by-day plan. Its "policy" is how likely it is to write each next word.',
    },
  },
  rollout: {
    term: 'Rollout',
    names: ['rollout', 'rollouts', 'episode', 'episodes'],
    from: {
      text: 'One attempt by the agent at one travel request, from the first tool call to the finished plan. Training looks at many rollouts and makes the better ones more likely.',
    },
  },
  group: {
    term: 'Group',
    names: ['group', 'groups', 'group size'],
    from: {
      text: 'Several rollouts of the same request (8 by default), compared with each other. If every rollout of a group gets the same reward, the group teaches nothing.',
    },
  },
  reward: {
    term: 'Reward',
    names: ['reward', 'rewards', 'reward shaping'],
    from: {
      text: 'The score a finished plan gets from automatic checks (budget, dates, real places, common sense). There are four ways to turn the checks into one score: Sum, Macro, Success and Curriculum.',
    },
  },
  'reward-sum': {
    term: 'Sum reward',
    names: ['Sum reward', 'Sum (dense)', 'dense reward'],
    from: { text: 'A dense reward: partial credit for every check the plan passes, so even a poor plan scores something.' },
  },
  'reward-macro': {
    term: 'Macro reward',
    names: ['Macro reward', 'Macro (semi-sparse)', 'semi-sparse'],
    from: {
      text: 'A semi-sparse reward: credit only for whole families of checks passed (all common-sense checks, all hard constraints).',
    },
  },
  'reward-success': {
    term: 'Success reward',
    names: ['Success reward', 'Success (sparse)', 'sparse reward'],
    from: { text: 'A sparse reward: 1 only when the plan passes every check, 0 otherwise.' },
  },
  'reward-curriculum': {
    term: 'Curriculum reward',
    names: ['Curriculum', 'curriculum stage'],
    from: {
      text: 'A reward that changes during training: Sum first, then Macro, then Success, from easy-to-earn to strict. Its stage is which of the three is in force at a step.',
    },
  },
  advantage: {
    term: 'Advantage',
    names: ['advantage', 'advantages'],
    from: {
      text: "How much better a rollout scored than the average of its group. Training makes rollouts with a positive advantage more likely and those with a negative one less likely.",
    },
  },
  rl: {
    term: 'RL (reinforcement learning)',
    names: ['RL', 'reinforcement learning'],
    from: {
      text: 'Learning by trying: the agent attempts requests, its plans are scored, and it is nudged toward what scored well. No one shows it the right answer.',
    },
  },
  sft: {
    term: 'SFT (supervised fine-tuning)',
    names: ['SFT', 'supervised fine-tuning'],
    from: {
      text: 'Learning by copying: the model is trained on a teacher’s worked examples before RL. The SFT start is where every RL run begins.',
    },
  },
  grpo: {
    term: 'GRPO (Group Relative Policy Optimization)',
    names: ['GRPO'],
    from: {
      text: 'The basic RL method here (Shao et al. 2024): score a group of rollouts of one request and push the agent toward those that beat the group’s average. It needs no separate model to judge the rollouts.',
    },
  },
  dapo: {
    term: 'DAPO',
    names: ['DAPO'],
    from: {
      text: 'A variant of GRPO (Yu et al. 2025) that lets rare good choices grow faster and skips groups that teach nothing. It also penalises plans that run too long.',
    },
  },
  arpo: {
    term: 'ARPO',
    names: ['ARPO'],
    from: {
      text: 'A variant of GRPO for tool-using agents (Dong et al. 2025): where the agent is unsure after a tool answers, it branches into extra partial rollouts. It spends its budget of attempts where the choices matter.',
    },
  },
  algorithm: {
    term: 'Algorithm',
    names: ['algorithm', 'RL algorithm'],
    from: {
      text: 'The recipe that turns rewards into changes of the agent: GRPO, or its variants DAPO and ARPO. All three compare rollouts within a group.',
    },
  },
  ppo: {
    term: 'PPO clipping',
    names: ['PPO', 'clip range', 'Clip ε low', 'Clip ε high'],
    from: {
      text: 'A safety limit on each update, borrowed from PPO (Proximal Policy Optimization): the agent may change how likely it is to write a word only by a bounded factor per step.',
    },
  },
  'clip-fraction': {
    term: 'Clip fraction',
    names: ['clip fraction', 'clip frac'],
    from: {
      text: 'The share of words whose change hit the safety limit of an update. A high value means the agent is changing fast.',
    },
  },
  kl: {
    term: 'KL (Kullback–Leibler divergence)',
    names: ['KL'],
    from: {
      text: 'How far the agent’s word choices have drifted from where training started, as one number (0: not at all). GRPO can pay a small penalty for drift to keep the agent near its start.',
    },
  },
  entropy: {
    term: 'Entropy',
    names: ['entropy'],
    from: {
      text: 'How unsure the agent is about its next word: high when many words are likely, low when it is sure. Falling entropy means the agent is settling on its habits.',
    },
  },
  ood: {
    term: 'OOD (out of domain)',
    names: ['OOD', 'out-of-domain', 'out of domain'],
    from: {
      text: 'Tasks unlike the training ones: here, tool-QA questions instead of trip plans. An OOD score asks whether what the agent learnt carries over.',
    },
  },
  'tool-qa': {
    term: 'Tool-QA',
    names: ['tool-QA', 'QA'],
    from: {
      text: 'Short questions the agent answers by calling the same tools (a flight’s price, a distance), never seen in training. They measure out-of-domain skill.',
    },
  },
  'validation-success': {
    term: 'Validation success',
    names: ['validation success', 'in-domain success'],
    from: { metric: 'eval/success' },
  },
  success: {
    term: 'Success',
    names: ['success'],
    from: {
      text: 'A plan succeeds when it passes every check: within budget, on the right dates, with real places and sensible days. Success rates are in percent; a difference of two rates is in points.',
    },
  },
  points: {
    term: 'Points',
    names: ['points', 'percentage points'],
    from: { text: 'The difference of two percentages: from 30 % to 45 % is 15 points.' },
  },
  evaluation: {
    term: 'Evaluation',
    names: ['evaluation', 'evaluations', 'held-out', 'held out', 'validation'],
    from: {
      text: 'A test of the agent on requests it never trains on (held out), every few steps. The agent takes its most likely choice each time, so the test has no luck in it.',
    },
  },
  step: {
    term: 'Step',
    names: ['step', 'steps', 'training steps'],
    from: {
      text: 'One round of training: a few requests, a group of rollouts for each, their rewards, and one update of the agent. A standard run here is 40 steps.',
    },
  },
  checkpoint: {
    term: 'Checkpoint',
    names: ['checkpoint', 'checkpoints', 'starting point'],
    from: {
      text: 'A saved copy of the model’s weights. The lab ships SFT checkpoints at three sizes, and every RL run starts from one.',
    },
  },
  scale: {
    term: 'Scale (S, M, L)',
    names: ['scale', 'model scale', '1.5B', '3B', '7B'],
    from: {
      text: 'The model’s size. S, M and L stand in for the paper’s 1.5, 3 and 7 billion-parameter models, at the same ratios of size but small enough for a browser.',
    },
  },
  seed: {
    term: 'Seed',
    names: ['seed', 'seeds'],
    from: {
      text: 'The number that fixes every random draw of a run. Two runs that differ only in their seed end at different places: that spread is seed-to-seed chance.',
    },
  },
  'null-control': {
    term: 'Null control',
    names: ['null control', 'null controls', 'shuffled'],
    from: {
      text: 'The same run with its rewards shuffled between rollouts, so nothing links what the agent did to its score. Whatever it gains is what training does without any signal.',
    },
  },
  gain: {
    term: 'Gain',
    names: ['gain', 'gains'],
    from: { text: 'How many points a run’s success rose from its SFT start to its end.' },
  },
  interval: {
    term: '95 % interval',
    names: ['interval', 'intervals', 'confidence interval'],
    from: {
      text: 'The range the true value lies in, judged from the data, 95 times in 100. A narrow interval means the figure is known well; one that covers 0 cannot tell a difference from none.',
    },
  },
  band: {
    term: 'Band',
    names: ['band'],
    from: {
      text: 'The range where one more run of a setting is expected to end, drawn from the committed runs of that setting. A run outside it is unusual for its setting.',
    },
  },
  wilson: {
    term: 'Wilson interval',
    names: ['Wilson'],
    from: { text: 'The 95 % interval of a success rate measured on a number of queries: fewer queries, a wider interval.' },
  },
  welch: {
    term: "Welch's test",
    names: ['Welch', 'Welch–Satterthwaite', 't-test'],
    from: {
      text: 'The test that asks whether two settings’ average results differ by more than seed-to-seed chance would give, allowing each its own spread. Its p-value is how often chance alone would give a difference this large.',
    },
  },
  'p-value': {
    term: 'p-value',
    names: ['p-value', 'p-values'],
    from: {
      text: 'How often seed-to-seed chance alone would give a difference at least this large. Below 0.05 (after Holm) the difference counts as real.',
    },
  },
  holm: {
    term: "Holm's correction",
    names: ['Holm'],
    from: {
      text: 'A stricter bar when several comparisons are tested at once, so that the chance of even one false alarm stays at 5 %. The interval beside a Holm call is wider to match.',
    },
  },
  tost: {
    term: 'TOST (equivalence test)',
    names: ['TOST', 'equivalence test'],
    from: {
      text: 'Two one-sided tests that ask whether a difference is smaller than ±δ points. Only when it rejects may the lab say the two settings are the same within ±δ.',
    },
  },
  sd: {
    term: 'SD (standard deviation)',
    names: ['SD', 'spread'],
    from: { text: 'How far single results typically sit from their average: the spread of the runs.' },
  },
  power: {
    term: 'Power plan',
    names: ['power plan', 'power analysis'],
    from: {
      text: 'Deciding before the runs how many seeds a comparison needs to find a difference of a given size 80 times in 100. The seeds were fixed this way before any run.',
    },
  },
  interim: {
    term: 'Interim',
    names: ['interim'],
    from: { text: 'Not all the planned seeds have finished yet, so no call is made.' },
  },
  confirmatory: {
    term: 'Confirmatory test',
    names: ['confirmatory test', 'confirmatory answer', 'confirmatory'],
    from: {
      text: 'A second, new experiment that checks a difference the first runs happened to show, on fresh seeds planned before any of them ran. The seeds that showed a difference cannot confirm it, because they are why it was picked.',
    },
  },
  exploratory: {
    term: 'Exploratory',
    names: ['exploratory'],
    from: {
      text: 'Found by looking through the results after the runs, not planned before them: a lead worth testing again, never a call.',
    },
  },
  interaction: {
    term: 'Interaction',
    names: ['interaction', 'interactions', 'scale × schedule interaction'],
    from: {
      text: 'Whether the gap between two choices changes with scale: the difference at one scale minus the difference at another. Tested over the four cells with each its own spread (a Welch–Satterthwaite contrast).',
    },
  },
  'adaptive-curriculum': {
    term: 'Adaptive curriculum',
    names: ['adaptive curriculum', 'adaptive switch', 'adaptive rule'],
    from: { setting: 'curriculumSwitch' },
  },
  'switch-step': {
    term: 'Switch step',
    names: ['switch step', 'where it switches', 'order-statistic interval'],
    from: {
      text: 'The first training step a run spends on the next, sparser reward. Over seeds the lab shows the middle run (the median) with a range drawn from the runs\' own ranks, which holds the true median 95 % of the time whatever the spread.',
    },
  },
  censored: {
    term: 'Censored run',
    names: ['censored', 'never switched'],
    from: {
      text: 'A run that never reached the stage within its steps: its switch step is only known to be later than the last step. It is counted, never averaged in.',
    },
  },
  isolation: {
    term: 'Cross-origin isolation (COOP, COEP)',
    names: ['COOP', 'COEP', 'cross-origin isolated', 'cross-origin isolation'],
    from: {
      text: 'Two headers a web server sends (COOP and COEP) that let the page train on several CPU threads at once. Without them it trains on one.',
    },
  },
  smoothing: {
    term: 'Smoothing (EMA)',
    names: ['EMA', 'smoothing', 'smoothed'],
    from: {
      text: 'A running average over recent steps (an exponential moving average) that steadies a noisy curve. Evaluations are drawn as measured, never smoothed.',
    },
  },
  'learning-rate': {
    term: 'Learning rate (LR)',
    names: ['learning rate', 'LR'],
    from: { text: 'How big a change each update may make to the model: too small and it learns slowly, too large and it forgets.' },
  },
  'kv-cache': {
    term: 'KV cache',
    names: ['KV', 'KV cache'],
    from: {
      text: 'The model’s memory of the words it has already read, kept so that writing each next word does not reread them all.',
    },
  },
  'training-queries': { term: 'Training queries', names: ['training queries'], from: { setting: 'trainSize' } },
  mix: { term: 'Difficulty mix', names: ['difficulty mix', 'hard only', 'hard-only'], from: { setting: 'mix' } },
  'tool-failures': {
    term: 'Tool failures',
    names: ['tool failure rate', 'tool failures', 'tool failure'],
    from: { setting: 'toolFailureRate' },
  },
  delivery: { term: 'Delivery', names: ['delivery', 'delivers'], from: { metric: 'charts/delivery' } },
  'teacher-trajectories': {
    term: 'Teacher trajectories',
    names: ['teacher', 'trajectories'],
    from: {
      text: 'Worked examples written by a scripted expert: the right tool calls and a correct plan. SFT learns from them.',
    },
  },
};

/** acronyms on the page that are everyday computing words, not the study's jargon: no entry needed */
export const PLAIN_ACRONYMS: readonly string[] = [
  'CPU', 'GPU', 'CSV', 'JSON', 'URL', 'QR', 'ID', 'OK', 'CLI', 'PNG', 'SVG', 'MB', 'GB', 'KB', 'UTC', 'ETA', 'WASM',
  'AI', 'LLM', 'NPM', 'AM', 'PM', 'BBQ', 'HTML', 'PDF', 'S', 'M', 'L', 'A', 'B', 'I', 'T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'STAR',
];

// One colour for a rollout's reward wherever a rollout is drawn (the group tree, the sample tabs):
// red (0) → amber → green (1); rewards below 0 (DAPO's overlong penalty) stay red. Whether it passes
// every check is a separate mark (✓), never the colour: a dense reward of 0.94 fails a check yet is
// nearly full reward.
export function rewardColor(reward: number): string {
  const r = Math.max(0, Math.min(1, reward));
  const hue = 5 + r * 125;
  return `hsl(${hue.toFixed(0)} 65% 42%)`;
}

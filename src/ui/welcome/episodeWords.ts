// An episode in plain words for the welcome: a tool call as a question, a check as what it tests, a plan as
// days of lines. Pure (no DOM), so a test can read it.
import type { CommonsenseKey, HardKey, Plan, ToolName } from '../../env/types.ts';

const ASKS: Record<ToolName, (args: string[]) => string> = {
  SearchCity: ([state]) => `Which cities are in ${state}?`,
  SearchFlight: ([from, to, date]) => `Flights from ${from} to ${to} on ${date}?`,
  GoogleDistanceMatrix: ([from, to, mode]) => `How long and how much by ${mode} from ${from} to ${to}?`,
  SearchAccommodation: ([city]) => `Where can one stay in ${city}?`,
  SearchRestaurant: ([city]) => `Where can one eat in ${city}?`,
  SearchAttraction: ([city]) => `What is there to see in ${city}?`,
};

/** `SearchFlight(Boston, Chicago, 2022-03-04)` → "Flights from Boston to Chicago on 2022-03-04?" (a call the
 *  page cannot read stays as it is) */
export function callInWords(call: string): string {
  const m = /^(\w+)\((.*)\)$/.exec(call);
  const ask = m ? ASKS[m[1] as ToolName] : undefined;
  return ask && m ? ask(m[2].split(',').map((a) => a.trim())) : call;
}

const CHECKS: Record<CommonsenseKey | HardKey, string> = {
  is_reasonable_visiting_city: 'A sensible route',
  is_valid_restaurants: 'No restaurant twice',
  is_valid_attractions: 'No attraction twice',
  is_valid_accommodation: 'Stays long enough for each place',
  is_valid_transportation: 'Ways of travel that fit together',
  is_valid_information_in_current_city: "Everything is in the day's city",
  is_valid_information_in_sandbox: 'Everything exists in the database',
  is_not_absent: 'Every day complete',
  valid_cost: 'Within the budget',
  valid_room_rule: 'House rules the traveller asked for',
  valid_cuisine: 'Cuisines the traveller asked for',
  valid_room_type: 'Room type the traveller asked for',
  valid_transportation: 'Transport the traveller asked for',
};

/** what a check tests, in words (an unknown key as it is) */
export function checkInWords(key: string): string {
  return CHECKS[key as CommonsenseKey] ?? key.replaceAll('_', ' ');
}

export interface PlanDayLines {
  day: number;
  city: string;
  lines: { what: string; text: string }[];
}

/** a plan's days, each with its filled lines (travel, meals, sights, stay); "-" lines are left out */
export function planDays(plan: Plan | null): PlanDayLines[] {
  if (!plan) return [];
  const parts = [
    ['Travel', 'transportation'],
    ['Breakfast', 'breakfast'],
    ['See', 'attraction'],
    ['Lunch', 'lunch'],
    ['Dinner', 'dinner'],
    ['Stay', 'accommodation'],
  ] as const;
  return plan.map((d) => ({
    day: d.days,
    city: d.current_city,
    lines: parts
      .map(([what, key]) => ({ what, text: String(d[key] ?? '').replace(/;\s*$/, '').trim() }))
      .filter((l) => l.text && l.text !== '-'),
  }));
}

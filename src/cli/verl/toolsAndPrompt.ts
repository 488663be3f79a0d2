// What the model in a veRL job is told (cli/verlJob.ts): the six tools' descriptions and veRL's tool
// schema of each, tool_config.yaml (veRL's tool list pointing at travelplanner_tools.py), and the system
// prompt every parquet row opens with.
import { TOOL_ARGUMENTS, TOOL_NAMES } from '../../env/tools.ts';
import type { ToolName } from '../../env/types.ts';
import { VERL_VERSION } from './target.ts';

const TOOL_DOCS: Record<ToolName, { description: string; args: Record<string, string> }> = {
  SearchFlight: {
    description:
      'List the flights from one city to another on a date (flight number, price per person, departure and arrival time, duration, distance).',
    args: {
      departure: 'the city to fly from',
      destination: 'the city to fly to',
      date: 'the date of the flight, YYYY-MM-DD (e.g. 2022-03-16)',
    },
  },
  GoogleDistanceMatrix: {
    description:
      'The duration, distance and cost of driving between two cities, by self-driving (cost per car of up to 5 people) or taxi (cost per taxi of up to 4 people).',
    args: { departure: 'the city to drive from', destination: 'the city to drive to', mode: 'self-driving or taxi' },
  },
  SearchAccommodation: {
    description:
      "List a city's accommodations (name, price per night, room type, house rules, minimum nights, maximum occupancy, rating).",
    args: { city: 'the city' },
  },
  SearchRestaurant: {
    description: "List a city's restaurants (name, average cost per person, cuisines, rating).",
    args: { city: 'the city' },
  },
  SearchAttraction: {
    description: "List a city's attractions (name, address, phone, website).",
    args: { city: 'the city' },
  },
  SearchCity: {
    description: 'List the cities of a state that have travel information.',
    args: { state: 'the state, e.g. California' },
  },
};

/** veRL's tool schema of each tool (flat string parameters, all required). */
export function toolSchemas(): {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: {
      type: 'object';
      properties: Record<string, { type: 'string'; description: string }>;
      required: string[];
    };
  };
}[] {
  return TOOL_NAMES.map((name) => ({
    type: 'function',
    function: {
      name,
      description: TOOL_DOCS[name].description,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(
          TOOL_ARGUMENTS[name].map((a) => [a, { type: 'string', description: TOOL_DOCS[name].args[a] }]),
        ),
        required: [...TOOL_ARGUMENTS[name]],
      },
    },
  }));
}

/** The system prompt of every row: the task, the six tools and the plan format the reward reads. */
export function systemPrompt(): string {
  const tools = TOOL_NAMES.map((t) => `- ${t}(${TOOL_ARGUMENTS[t].join(', ')}): ${TOOL_DOCS[t].description}`).join(
    '\n',
  );
  return [
    'You are a travel planner. Plan the trip the user asks for using only information returned by the tools below; call them as often as you need (a failed call may be retried).',
    '',
    'Tools:',
    tools,
    '',
    'When you have what you need, answer with the plan and nothing after it: a JSON list with one object per day of the trip inside <plan></plan>, each with the keys',
    '"days" (1, 2, …), "current_city", "transportation", "breakfast", "attraction", "lunch", "dinner", "accommodation" (all text; "-" when there is none):',
    '- current_city: "from A to B" on a day that travels from city A to city B, else the city of the day.',
    '- transportation: "Flight Number: F0123456, from A to B, Departure Time: 08:00, Arrival Time: 10:05", or "Self-driving, from A to B, duration: 2 hours 5 mins, distance: 190 km, cost: 9", or "Taxi, from A to B, …"; "-" when the day does not travel.',
    '- breakfast, lunch, dinner, accommodation: "Name, City" exactly as the tools list them.',
    '- attraction: "Name, City;" for each attraction, e.g. "Liberty Plaza, Denver;City Museum, Denver;".',
    'The trip starts at the origin on the first day and returns there on the last; stay where you sleep (an accommodation every night but the last), do not repeat a restaurant or an attraction, and keep the total cost within the budget and every constraint of the request.',
  ].join('\n');
}

const yamlString = (s: string) => JSON.stringify(s); // a JSON string is a valid YAML double-quoted scalar

export function toolConfigYaml(failureRate: number, seed: number): string {
  const lines = [
    `# STAR Lab export: the six TravelPlanner tools for veRL ${VERL_VERSION} (actor_rollout_ref.rollout.multi_turn.tool_config_path).`,
    "# Each class answers from ./database exactly as the lab does; failure_rate and seed: the lab config's tool failures.",
    'tools:',
  ];
  for (const s of toolSchemas()) {
    const f = s.function;
    lines.push(
      `  - class_name: travelplanner_tools.${f.name}Tool`,
      '    config:',
      '      type: native',
      `      failure_rate: ${failureRate}`,
      `      seed: ${seed}`,
      '    tool_schema:',
      '      type: function',
      '      function:',
      `        name: ${f.name}`,
      `        description: ${yamlString(f.description)}`,
      '        parameters:',
      '          type: object',
      '          properties:',
      ...Object.entries(f.parameters.properties).flatMap(([name, p]) => [
        `            ${name}:`,
        '              type: string',
        `              description: ${yamlString(p.description)}`,
      ]),
      `          required: [${f.parameters.required.join(', ')}]`,
    );
  }
  return lines.join('\n') + '\n';
}

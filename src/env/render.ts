// Tool observations as TravelPlanner's text: the same tables (pandas `to_string` layout: columns
// right-aligned, restaurants with a row index) and the same sentences ("There is no flight from A to
// B on D.", "self-driving, from A to B, duration: 19 hours 6 mins, distance: 2,103 km, cost: 105",
// "No valid information."), so a prompt built from them reads like the benchmark's reference data.
import type { Drive, Observation } from './types.ts';

type Cell = string | number;
interface Column {
  header: string;
  numeric: boolean;
  cells: string[];
}

/** pandas-like layout: numeric headers get one extra space; with an index, string cells get one too. */
function table(headers: readonly string[], numeric: readonly boolean[], rows: Cell[][], withIndex: boolean): string {
  const columns: Column[] = headers.map((header, c) => ({
    header,
    numeric: numeric[c],
    cells: rows.map((r) => String(r[c])),
  }));
  const widths = columns.map((col) => {
    let width = col.numeric ? col.header.length + 1 : col.header.length;
    for (const cell of col.cells) width = Math.max(width, cell.length + (!col.numeric && withIndex ? 1 : 0));
    return width;
  });
  const indexWidth = withIndex ? String(Math.max(0, rows.length - 1)).length : 0;
  const line = (cells: string[], index: string | null) => {
    const parts = cells.map((cell, c) => cell.padStart(widths[c]));
    return (index === null ? '' : index.padEnd(indexWidth) + ' ') + parts.join(' ');
  };
  const out = [line(headers as string[], withIndex ? '' : null)];
  for (let r = 0; r < rows.length; r++)
    out.push(
      line(
        columns.map((col) => col.cells[r]),
        withIndex ? String(r) : null,
      ),
    );
  return out.join('\n');
}

const float1 = (x: number) => x.toFixed(1);

/** Google's duration text: "26 mins", "1 hour 9 mins", "19 hours 6 mins" */
export function durationText(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  const mins = `${m} ${m === 1 ? 'min' : 'mins'}`;
  if (h === 0) return mins;
  return `${h} ${h === 1 ? 'hour' : 'hours'} ${mins}`;
}

/** Google's distance text: "70.7 km" under 100 km, else "2,103 km" */
export function distanceText(km: number): string {
  if (km < 100) return `${Math.round(km * 10) / 10} km`;
  return `${Math.round(km).toLocaleString('en-US')} km`;
}

/** "self-driving, from A to B, duration: …, distance: …, cost: …" (TravelPlanner's GoogleDistanceMatrix line) */
export function driveText(mode: string, drive: Drive, cost: number): string {
  return `${mode}, from ${drive.origin} to ${drive.destination}, duration: ${durationText(drive.durationMinutes)}, distance: ${distanceText(drive.distanceKm)}, cost: ${cost}`;
}

/** Python's repr of a list of strings, as TravelPlanner's CitySearch prints it. */
function pythonList(items: readonly string[]): string {
  return `[${items.map((s) => (s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replace(/'/g, "\\'")}'`)).join(', ')}]`;
}

export function renderObservation(obs: Observation): string {
  switch (obs.kind) {
    case 'flights':
      if (obs.rows.length === 0) {
        if (obs.departure === undefined) return 'There is no flight.';
        return `There is no flight from ${obs.departure} to ${obs.destination} on ${obs.date}.`;
      }
      return table(
        [
          'Flight Number',
          'Price',
          'DepTime',
          'ArrTime',
          'ActualElapsedTime',
          'FlightDate',
          'OriginCityName',
          'DestCityName',
          'Distance',
        ],
        [false, true, false, false, false, false, false, false, true],
        obs.rows.map((f) => [
          f.flightNumber,
          f.price,
          f.depTime,
          f.arrTime,
          f.elapsed,
          f.date,
          f.origin,
          f.dest,
          float1(f.distance),
        ]),
        false,
      );
    case 'drive':
      if (obs.drive === null || obs.cost === null) return 'No valid information.';
      return driveText(obs.mode, obs.drive, obs.cost);
    case 'accommodations':
      if (obs.rows.length === 0) return 'There is no accommodation in this city.';
      return table(
        [
          'NAME',
          'price',
          'room type',
          'house_rules',
          'minimum nights',
          'maximum occupancy',
          'review rate number',
          'city',
        ],
        [false, true, false, false, true, true, true, false],
        obs.rows.map((a) => [
          a.name,
          float1(a.price),
          a.roomType,
          a.houseRules.join(' & ') || '-',
          float1(a.minimumNights),
          a.maximumOccupancy,
          float1(a.rating),
          a.city,
        ]),
        false,
      );
    case 'restaurants':
      if (obs.rows.length === 0) return 'There is no restaurant in this city.';
      return table(
        ['Name', 'Average Cost', 'Cuisines', 'Aggregate Rating', 'City'],
        [false, true, false, true, false],
        obs.rows.map((r) => [r.name, r.averageCost, r.cuisines.join(', '), float1(r.rating), r.city]),
        true,
      );
    case 'attractions':
      if (obs.rows.length === 0) return 'There is no attraction in this city.';
      return table(
        ['Name', 'Latitude', 'Longitude', 'Address', 'Phone', 'Website', 'City'],
        [false, true, true, false, false, false, false],
        obs.rows.map((a) => [
          a.name,
          a.latitude.toFixed(6),
          a.longitude.toFixed(6),
          a.address,
          a.phone,
          a.website,
          a.city,
        ]),
        false,
      );
    case 'cities':
      return pythonList(obs.cities);
    case 'error':
      return obs.failure ? `Error: ${obs.message}` : obs.message;
    default:
      return `Unrecognised observation: ${JSON.stringify(obs)}`;
  }
}

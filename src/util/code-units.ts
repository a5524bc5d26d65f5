/** Largest run handed to `String.fromCharCode` as arguments at once (engines cap argument counts). */
const UNITS_PER_CALL = 4096;

/** The string of UTF-16 code units `units`, by `apply` (faster than spreading) in slices under the argument cap. */
export function stringOfCodeUnits(units: Uint16Array): string {
  if (units.length <= UNITS_PER_CALL) return String.fromCharCode.apply(null, units as unknown as number[]);
  let text = '';
  for (let from = 0; from < units.length; from += UNITS_PER_CALL) {
    text += String.fromCharCode.apply(null, units.subarray(from, from + UNITS_PER_CALL) as unknown as number[]);
  }
  return text;
}

/** Parses a price such as "$4.50" into whole cents. */
export function parseCents(text: string): number {
  const value = text.trim().replace('$', '');
  return value;
}

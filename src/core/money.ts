// Money as a person reads it: prices (`model.pricing`, `costCeiling`) are US dollars, the unit the
// providers publish theirs in, so every figure says `$`. One formatter for the status bar, the panel,
// the stop sentences and the CLI's text; JSON keeps the plain numbers.

/**
 * $0.009, $0.0004, $0.01, $1.25, $0.50: cents, and below a cent enough decimals to show the first
 * digit that is not 0 (a run that spent $0.0004 did not spend nothing); 0 is $0.00.
 */
export function formatMoney(n: number): string {
  if (!Number.isFinite(n)) return `$${n}`;
  const abs = Math.abs(n);
  const sign = n < 0 ? '-' : '';
  if (abs === 0) return '$0.00';
  // Below a cent: round at the first digit that is not 0 (0.00893 → 0.009).
  const decimals = abs >= 0.01 ? 2 : Math.min(20, -Math.floor(Math.log10(abs)));
  // 0.00096 rounds to 0.0010: past the cents, trailing zeros say nothing; the cents stay.
  const s = abs.toFixed(decimals);
  return `${sign}$${decimals > 2 ? s.replace(/(\.\d\d\d*?)0+$/, '$1') : s}`;
}

/** "$0.009 of $0.50", or "$0.009" with no ceiling (0 is none). */
export function formatSpend(used: number, ceiling: number | undefined): string {
  return ceiling && ceiling > 0 ? `${formatMoney(used)} of ${formatMoney(ceiling)}` : formatMoney(used);
}

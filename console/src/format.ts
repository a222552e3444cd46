export const money = (usd: number) => `$${usd.toFixed(4)}`;

/** A timestamp as the reader's local time. */
export const when = (iso: string) => new Date(iso).toLocaleString();

/** How long ago, in the largest unit that fits. */
export function age(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}

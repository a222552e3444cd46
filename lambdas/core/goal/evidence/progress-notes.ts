/** How many progress notes a record keeps; older ones live on in the event log. */
export const KEPT_PROGRESS_NOTES = 10;
/** How many of the latest notes a prompt shows. */
export const PROMPT_PROGRESS_NOTES = 3;

/** The notes with `note` appended, trimmed to the last KEPT_PROGRESS_NOTES. */
export function appendProgressNote(notes: readonly string[], note: string): string[] {
  return [...notes, note].slice(-KEPT_PROGRESS_NOTES);
}

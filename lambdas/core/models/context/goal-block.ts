/**
 * Human text is data: continuation lines are indented so no line of it can pose as a section of
 * the block, and carriage returns and trailing spaces never make two equal records render apart.
 */
export function blockItem(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n    ");
}

/** A titled section of a goal block, left out when it has no lines. */
export function blockSection(title: string, lines: readonly string[]): string[] {
  return lines.length === 0 ? [] : ["", `${title}:`, ...lines];
}

/** One printed figure: its value, its budget when it has one, and whether it meets it. */
export interface Figure {
  readonly section: string;
  readonly name: string;
  readonly value: number | string;
  readonly unit?: string;
  /** The budget as printed (`<= 1.5`), absent for figures shown for information. */
  readonly budget?: string;
  /** undefined: no budget; null: could not be measured (counts as missed). */
  readonly met?: boolean | null;
  readonly note?: string;
}

export function atMost(
  section: string,
  name: string,
  value: number,
  limit: number,
  unit = "",
  note?: string,
): Figure {
  const met = Number.isFinite(value) ? value <= limit : null;
  return {
    section,
    name,
    value,
    unit,
    budget: `<= ${format(limit)}${unit ? ` ${unit}` : ""}`,
    met,
    ...(note ? { note } : {}),
  };
}

export function atLeast(section: string, name: string, value: number, limit: number, unit = ""): Figure {
  const met = Number.isFinite(value) ? value >= limit : null;
  return { section, name, value, unit, budget: `>= ${format(limit)}${unit ? ` ${unit}` : ""}`, met };
}

export function info(
  section: string,
  name: string,
  value: number | string,
  unit = "",
  note?: string,
): Figure {
  return { section, name, value, unit, ...(note ? { note } : {}) };
}

export function format(value: number | string): string {
  if (typeof value === "string") return value;
  if (!Number.isFinite(value)) return "n/a";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  if (Math.abs(value) >= 10) return value.toFixed(1);
  if (Math.abs(value) >= 0.01 || value === 0) return value.toFixed(3).replace(/\.?0+$/, "") || "0";
  return value.toPrecision(3);
}

/** The figures as a plain-text table, grouped by section, each beside its budget. */
export function table(figures: readonly Figure[]): string {
  const rows = figures.map((figure) => [
    figure.section,
    figure.name,
    `${format(figure.value)}${figure.unit ? ` ${figure.unit}` : ""}`,
    figure.budget ?? "",
    figure.met === undefined ? "" : figure.met === null ? "NOT MEASURED" : figure.met ? "ok" : "MISSED",
  ]);
  const header = ["section", "figure", "value", "budget", ""];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

/** The same table in Markdown, for docs/performance.md. */
export function markdown(figures: readonly Figure[]): string {
  // A value may hold a pipe (the critical path's rounds): escaped, it stays inside its cell.
  const cell = (text: string) => text.replaceAll("|", "\\|");
  const rows = figures.map(
    (figure) =>
      `| ${cell(figure.section)} | ${cell(figure.name)} | ${cell(format(figure.value))}${figure.unit ? ` ${figure.unit}` : ""} | ${figure.budget ?? "—"} | ${
        figure.met === undefined
          ? ""
          : figure.met === null
            ? "not measured"
            : figure.met
              ? "ok"
              : "**missed**"
      } |`,
  );
  return ["| section | figure | value | budget | |", "|---|---|---|---|---|", ...rows].join("\n");
}

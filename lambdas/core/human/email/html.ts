/**
 * HTML built only through the `html` tag: every interpolated value is escaped unless it is itself
 * `Html` made by the tag, so text from goals (objectives, action summaries, names) cannot become
 * markup. There is no way to interpolate a raw string.
 */
export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

export type HtmlValue = string | number | Html | readonly Html[];

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Text safe inside element content and inside quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => ESCAPES[char] ?? char);
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map((item: Html) => item.text).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let text = strings[0] ?? "";
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? "");
  });
  return new Html(text);
}

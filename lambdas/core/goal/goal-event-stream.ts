import type { GoalEvent } from "./goal-event";

/**
 * A goal's events as Server-Sent Events (`GET /goals/{goalId}/stream`): one frame per event, `id:`
 * its seq (so a client resumes with `Last-Event-ID`), `event:` its type, `data:` the event as the
 * events route shows it, on one line. Pure text in both directions: the stream function writes
 * frames, the CLI and the console read them with `SseParser`.
 */
export function eventFrame(event: GoalEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** A comment line: ignored by clients, it keeps an idle connection from timing out. */
export function commentFrame(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}

/** How long a client waits before reconnecting after the server ended the stream, in ms. */
export function retryFrame(ms: number): string {
  return `retry: ${Math.max(0, Math.round(ms))}\n\n`;
}

/** One dispatched frame, as the HTML standard's event-stream parser defines it. */
export interface SseFrame {
  /** The last `id:` seen on the stream (it carries over frames that set none). */
  readonly id: string;
  readonly event: string;
  readonly data: string;
}

/**
 * An incremental event-stream parser (the HTML standard's rules): feed it chunks as they arrive,
 * in any split, and it returns the frames completed so far. Lines end in LF, CR or CRLF; `:` lines
 * are comments; a frame without `data:` is not dispatched.
 */
export class SseParser {
  private buffer = "";
  private lastId = "";
  private eventType = "";
  private data: string[] = [];
  private pendingCr = false;

  push(chunk: string): SseFrame[] {
    let text = chunk;
    // A CR at the end of the last chunk may be the first half of a CRLF.
    if (this.pendingCr && text.startsWith("\n")) text = text.slice(1);
    this.pendingCr = text.endsWith("\r");
    this.buffer += text;
    const frames: SseFrame[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (match === null) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const frame = this.line(line);
      if (frame) frames.push(frame);
    }
    return frames;
  }

  private line(line: string): SseFrame | undefined {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.eventType = value;
    else if (field === "id" && !value.includes("\0")) this.lastId = value;
    return undefined;
  }

  private dispatch(): SseFrame | undefined {
    const data = this.data;
    const event = this.eventType || "message";
    this.data = [];
    this.eventType = "";
    if (data.length === 0) return undefined;
    return { id: this.lastId, event, data: data.join("\n") };
  }
}

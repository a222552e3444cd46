import { ValidationError } from "../../core/goal/errors";
import { assertJsonDepth, MAX_GOAL_SPEC_BYTES, MAX_JSON_DEPTH } from "../../core/goal/json-bounds";

/**
 * The largest body the API reads, in UTF-8 bytes: a GoalSpec at its own limit. API Gateway lets
 * up to 10 MB through; reading, parsing and walking that much for a body no route takes is waste.
 */
export const MAX_REQUEST_BODY_BYTES = MAX_GOAL_SPEC_BYTES;

/**
 * The request body parsed as JSON, left `unknown` for the schema to judge. Text that is not JSON
 * is a ValidationError on the root (path ""), like any other bad input; so is a body above
 * MAX_REQUEST_BODY_BYTES (checked before parsing) or one that nests deeper than MAX_JSON_DEPTH
 * (checked before any schema recurses into it). `JSON.parse` itself is iterative in V8 and safe
 * at any depth.
 */
export function parseJsonBody(body: string | undefined): unknown {
  if (body === undefined || body.trim() === "") {
    throw new ValidationError("Request body is missing", [{ path: "", message: "body is required" }]);
  }
  const bytes = Buffer.byteLength(body, "utf8");
  if (bytes > MAX_REQUEST_BODY_BYTES) {
    const message = `body is ${bytes} bytes; the limit is ${MAX_REQUEST_BODY_BYTES} bytes`;
    throw new ValidationError(`Request body is too large: ${message}`, [{ path: "", message }]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new ValidationError(
      "Request body is not valid JSON",
      [{ path: "", message: "body is not valid JSON" }],
      { cause: error },
    );
  }
  assertJsonDepth(parsed, "request body", MAX_JSON_DEPTH);
  return parsed;
}

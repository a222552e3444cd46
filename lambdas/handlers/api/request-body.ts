import { ValidationError } from "../../core/goal/errors";

/**
 * The request body parsed as JSON, left `unknown` for the schema to judge. Text that is not JSON
 * is a ValidationError on the root (path ""), like any other bad input.
 */
export function parseJsonBody(body: string | undefined): unknown {
  if (body === undefined || body.trim() === "") {
    throw new ValidationError("Request body is missing", [{ path: "", message: "body is required" }]);
  }
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new ValidationError(
      "Request body is not valid JSON",
      [{ path: "", message: "body is not valid JSON" }],
      {
        cause: error,
      },
    );
  }
}

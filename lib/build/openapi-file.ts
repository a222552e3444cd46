import { openApiDocument } from "../../lambdas/handlers/api/contract/openapi-document";

/** Where the package ships the API's OpenAPI 3.1 document (`import … from "goal-loops/openapi.json"`). */
export const OPENAPI_FILE = "dist/openapi.json";
/** The same document in the docs, committed: a unit test fails while it disagrees with the schemas. */
export const OPENAPI_DOCS_FILE = "docs/openapi.json";

/** The document as both files hold it: two-space JSON and a final newline. */
export function openApiDocumentText(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}

/**
 * Writes docs/openapi.json from the API's zod schemas: `npm run openapi` after changing a route or a
 * shape (a unit test fails while the two disagree; the package build writes dist/openapi.json).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { OPENAPI_DOCS_FILE, openApiDocumentText } from "./openapi-file";

const target = path.join(import.meta.dirname, "..", "..", OPENAPI_DOCS_FILE);
writeFileSync(target, openApiDocumentText());
console.log(`wrote ${target}`);

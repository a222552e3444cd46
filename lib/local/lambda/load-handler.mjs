// Loads "<file>.<export>" from a Lambda asset folder the way the Node.js Lambda runtime does.
// Plain JavaScript: it runs inside a worker thread started without the TypeScript loader.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";

/**
 * A `.js` bundle is CommonJS unless a package.json inside the asset says "type": "module". Node
 * would apply the nearest package.json above it instead (this project's, "type": "module"), so a
 * CommonJS bundle is compiled here with its own module wrapper rather than imported.
 */
function loadCommonJs(file) {
  const module = { exports: {} };
  // Externals (@aws-sdk/*) resolve by walking up from the asset folder, as from /var/task.
  const require = createRequire(file);
  const wrapper = vm.compileFunction(
    readFileSync(file, "utf8"),
    ["exports", "require", "module", "__filename", "__dirname"],
    { filename: file },
  );
  wrapper.call(module.exports, module.exports, require, module, file, path.dirname(file));
  return module.exports;
}

function namedError(name, message) {
  const error = new Error(message);
  error.name = name;
  return error;
}

export async function loadHandler(assetDir, handlerString) {
  const dot = handlerString.lastIndexOf(".");
  const modulePath = handlerString.slice(0, dot);
  const exportName = handlerString.slice(dot + 1);
  const packageFile = path.join(assetDir, "package.json");
  const assetType = existsSync(packageFile) ? JSON.parse(readFileSync(packageFile, "utf8")).type : undefined;
  // The Node.js Lambda runtime tries these extensions in this order.
  for (const extension of [".js", ".mjs", ".cjs"]) {
    const file = path.join(assetDir, modulePath + extension);
    if (!existsSync(file)) continue;
    const isEsm = extension === ".mjs" || (extension === ".js" && assetType === "module");
    const module = isEsm ? await import(pathToFileURL(file).href) : loadCommonJs(file);
    const handler = module[exportName] ?? module.default?.[exportName];
    if (typeof handler !== "function") {
      throw namedError("Runtime.HandlerNotFound", `${handlerString} is undefined or not exported`);
    }
    return handler;
  }
  throw namedError("Runtime.ImportModuleError", `Error: Cannot find module '${modulePath}' in ${assetDir}`);
}

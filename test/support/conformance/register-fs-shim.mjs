// `node --import ./register-fs-shim.mjs …/conformance/dist/index.js`: gives the conformance
// package (and only it) the `fs` of fs-glob-shim.mjs.
import { register } from "node:module";

register("./fs-shim-hooks.mjs", import.meta.url);

// Bundled in place of "@aws-sdk/client-lambda" (see goal-loop-function.ts): require() the runtime's copy.
const id = "@aws-sdk/client-lambda";
module.exports = require(id);

// Bundled in place of "@aws-sdk/lib-dynamodb" (see goal-loop-function.ts): require() the runtime's copy.
const id = "@aws-sdk/lib-dynamodb";
module.exports = require(id);

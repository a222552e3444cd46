// Bundled in place of "@aws-sdk/client-dynamodb" (see goal-loop-function.ts): require() the runtime's copy.
const id = "@aws-sdk/client-dynamodb";
module.exports = require(id);

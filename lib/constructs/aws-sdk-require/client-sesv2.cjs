// Bundled in place of "@aws-sdk/client-sesv2" (see goal-loop-function.ts): require() the runtime's copy.
const id = "@aws-sdk/client-sesv2";
module.exports = require(id);
